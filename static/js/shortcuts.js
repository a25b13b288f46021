// Keyboard shortcuts on every page, listed in the help the header's "?" opens. A plain key never fires while the
// user types in a field (they may be typing a "/" or a "j"); Ctrl/Cmd+Enter is meant to be pressed while typing.
(function () {
  function typingIn(target) {
    return target instanceof Element && (target.closest("input, textarea, select") || target.isContentEditable);
  }

  // The form's button marked as the one a shortcut sends with, else its first submit button (as Enter would).
  function sendForm(form) {
    const buttons = [...form.elements].filter((e) => e.type === "submit" && !e.disabled);
    const submitter = buttons.find((e) => e.hasAttribute("data-shortcut-send")) || buttons[0];
    form.requestSubmit(submitter);
  }

  function moveCitation(step) {
    const citations = [...document.querySelectorAll("a.cite")];
    if (!citations.length) return;
    const at = citations.indexOf(document.activeElement);
    const next = at === -1 ? (step > 0 ? 0 : citations.length - 1)
      : Math.min(Math.max(at + step, 0), citations.length - 1);
    citations[next].focus();
    citations[next].scrollIntoView({ block: "nearest" });
  }

  function focusSearch() {
    const box = document.querySelector("[data-shortcut-focus]");
    if (!box) return false;
    box.focus();
    if (typeof box.select === "function") box.select();
    return true;
  }

  function openHelp() {
    const help = document.getElementById("shortcuts-help");
    if (help && !help.open) help.showModal();
  }

  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.isComposing) return;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      const form = event.target instanceof Element ? event.target.form || event.target.closest("form") : null;
      if (form && form.method !== "dialog") {
        event.preventDefault();
        sendForm(form);
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
    if (document.querySelector("dialog[open]")) return; // the help is open: Escape closes it
    const actions = {
      "/": focusSearch,
      "?": () => { openHelp(); return true; },
      j: () => { moveCitation(1); return true; },
      "]": () => { moveCitation(1); return true; },
      k: () => { moveCitation(-1); return true; },
      "[": () => { moveCitation(-1); return true; },
    };
    const action = actions[event.key];
    if (action && action()) event.preventDefault();
  });

  document.addEventListener("DOMContentLoaded", () => {
    const help = document.getElementById("shortcuts-help");
    document.getElementById("shortcuts-open")?.addEventListener("click", openHelp);
    help?.querySelector("[data-close]")?.addEventListener("click", () => help.close());
  });
})();
