// A note's wide code, tables and formulas scroll sideways inside themselves; one that overflows takes the keyboard
// focus, so that it can be scrolled without a mouse. Checked again when the window changes size, and once math and
// diagrams are drawn (the page's `load`).
(function () {
  const REGIONS = ".note pre, .note .body table, .note .math-display, .current-version pre.current-text, .models-scroll, .tokens-scroll, .turn .answer pre, .turn .answer table";

  function markScrollable() {
    for (const region of document.querySelectorAll(REGIONS)) {
      const overflows = region.scrollWidth > region.clientWidth || region.scrollHeight > region.clientHeight;
      if (overflows && !region.hasAttribute("tabindex")) region.setAttribute("tabindex", "0");
      else if (!overflows && region.getAttribute("tabindex") === "0") region.removeAttribute("tabindex");
    }
  }

  window.addEventListener("load", markScrollable);
  window.addEventListener("resize", markScrollable);
})();
