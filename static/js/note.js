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

  const diagrams = body.querySelectorAll("pre.mermaid");
  if (window.mermaid && diagrams.length) {
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "neutral" });
    mermaid.run({ nodes: diagrams, suppressErrors: true }).finally(() => {
      window.dispatchEvent(new Event("resize")); // a drawn diagram changes what overflows
      body.dataset.diagramsDrawn = "true";
    });
  }
})();
