// A note page's math and diagrams: the server sends TeX and mermaid source as text, and they are drawn here with
// the vendored KaTeX and mermaid. Neither may run anything a note says: KaTeX's `trust` stays off (no \href to
// javascript:, no raw HTML) and mermaid runs at its strict security level (no click handlers, labels as text).
"use strict";

(function () {
  const body = document.querySelector("article.note .body");
  if (!body) return;

  if (window.katex) {
    for (const element of body.querySelectorAll(".math")) {
      const source = element.textContent;
      katex.render(source, element, {
        displayMode: element.classList.contains("math-display"),
        throwOnError: false,
        trust: false,
      });
      element.title = source;
    }
  }

  // Diagrams are drawn in the page's theme, and drawn again from their source when the reader or the system
  // switches it (mermaid bakes its colours into the SVG, so the stylesheet cannot recolour them).
  const diagrams = [...body.querySelectorAll("pre.mermaid")];
  if (window.mermaid && diagrams.length) {
    const sources = diagrams.map((node) => node.textContent);
    const system = window.matchMedia("(prefers-color-scheme: dark)");
    const wanted = () => {
      const theme = document.documentElement.dataset.theme || (system.matches ? "dark" : "light");
      return theme === "dark" ? "dark" : "neutral";
    };
    let drawing = Promise.resolve();
    const draw = () => {
      drawing = drawing.then(() => {
        const theme = wanted();
        if (body.dataset.diagramsTheme === theme) return undefined;
        diagrams.forEach((node, i) => {
          node.removeAttribute("data-processed");
          node.textContent = sources[i];
        });
        mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme });
        return mermaid.run({ nodes: diagrams, suppressErrors: true }).finally(() => {
          window.dispatchEvent(new Event("resize")); // a drawn diagram changes what overflows
          body.dataset.diagramsTheme = theme;
          body.dataset.diagramsDrawn = "true";
        });
      });
    };
    draw();
    document.addEventListener("desirepath:theme", draw);
    system.addEventListener("change", draw);
  }
})();
