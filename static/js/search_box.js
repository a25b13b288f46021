// The search page's box. The server writes the query the results are for into it, and the browser's autofocus puts
// the caret before that text, so that words typed next would land in front of the query: the caret goes after it.
// Back and Forward bring a page back with its form as it was left (Chromium fills it in again just before
// `pageshow`), perhaps holding words and ticks that were never searched: it shows the search its results are for.
(function () {
  const box = document.querySelector(".searchbar input[name=q]");
  if (!box) return;

  function caretAtEnd() {
    // Someone who has already moved on to another field keeps their place there.
    if (document.activeElement !== box && document.activeElement !== document.body) return;
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  }

  caretAtEnd();
  window.addEventListener("pageshow", (event) => {
    const arrival = performance.getEntriesByType("navigation")[0];
    if (!event.persisted && arrival?.type !== "back_forward") return;
    box.form.reset();
    caretAtEnd();
  });
})();
