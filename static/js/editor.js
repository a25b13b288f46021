// Wikilink completion in the note editor: after `[[`, the vault's note titles holding what follows are offered
// under the text; a click, or the arrows and Enter (or Tab), writes the title and closes the link.
"use strict";

(function () {
  const text = document.getElementById("note-body");
  const list = document.getElementById("wikilink-suggestions");
  const data = document.getElementById("note-titles");
  if (!text || !list || !data) return;
  const titles = JSON.parse(data.textContent);
  const SHOWN = 8;
  let start = -1;
  let active = 0;
  let shown = [];

  // What was typed between an unclosed `[[` and the caret; null when the caret is not inside a link's name.
  function typedName() {
    const before = text.value.slice(0, text.selectionStart);
    const open = before.lastIndexOf("[[");
    if (open < 0) return null;
    const typed = before.slice(open + 2);
    if (/[\]\n|#^]/.test(typed)) return null;
    start = open + 2;
    return typed;
  }

  function close() {
    list.hidden = true;
    list.replaceChildren();
    shown = [];
  }

  function pick(title) {
    const end = text.selectionStart;
    const closed = text.value.slice(end).startsWith("]]");
    text.setRangeText(closed ? title : `${title}]]`, start, end, "end");
    if (closed) text.selectionStart = text.selectionEnd = start + title.length + 2;
    close();
    text.focus();
  }

  function draw() {
    list.replaceChildren(
      ...shown.map((title, index) => {
        const item = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        button.className = index === active ? "chip pressed" : "chip";
        button.textContent = title;
        // mousedown, not click: the textarea keeps its caret, so the title goes where the link is.
        button.addEventListener("mousedown", (event) => {
          event.preventDefault();
          pick(title);
        });
        item.append(button);
        return item;
      }),
    );
    list.hidden = shown.length === 0;
  }

  text.addEventListener("input", () => {
    const typed = typedName();
    if (typed === null) return close();
    const wanted = typed.trim().toLowerCase();
    const starting = titles.filter((title) => title.toLowerCase().startsWith(wanted));
    const containing = titles.filter((title) => !title.toLowerCase().startsWith(wanted) && title.toLowerCase().includes(wanted));
    shown = starting.concat(containing).slice(0, SHOWN);
    active = 0;
    draw();
  });

  text.addEventListener("keydown", (event) => {
    if (list.hidden || !shown.length) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      active = (active + (event.key === "ArrowDown" ? 1 : shown.length - 1)) % shown.length;
      draw();
    } else if (event.key === "Enter" || event.key === "Tab") {
      event.preventDefault();
      pick(shown[active]);
    } else if (event.key === "Escape") {
      close();
    }
  });

  text.addEventListener("blur", close);
})();
