// The chat page: send a question, stream its answer (server-sent events), render citations, gate scores and
// feedback buttons. One renderer serves streamed answers and stored conversations alike.
"use strict";

// A person's verdict on a passage is one choice: helpful or not at hand, the rarer ones in a menu. Choosing
// another replaces it; pressing the chosen one again, or Undo, takes it back.
const CHOICES = [["confirm", "Helpful"], ["not_useful", "Not helpful"]];
const MORE = [["used", "I used it"], ["not_relevant", "Not relevant"], ["reject", "Wrong"], ["correct", "Correct…"]];
const LABELS = Object.fromEntries([...CHOICES, ...MORE, ["correct", "Corrected"]]);
const FALLBACKS = {
  explicit: "Not from your notes: the vaults had nothing on this.",
  refuse: "Not answered: the vaults had nothing on this and are set to refuse.",
  silent: "No answer: the vaults had nothing on this and are set to stay silent.",
  casual: "Casual message: nothing was searched or injected.",
};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value; else node.setAttribute(key, value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

function csrf() {
  return document.querySelector("#ask-form [name=csrfmiddlewaretoken]").value;
}

function postJson(url, body, options = {}) {
  return fetch(url, {
    method: "POST", headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
    body: JSON.stringify(body), ...options,
  });
}

function deleteJson(url) {
  return fetch(url, { method: "DELETE", headers: { "X-CSRFToken": csrf() } });
}

async function problem(response) {
  const body = await response.json().catch(() => null);
  if (!body) return `the server answered ${response.status}`;
  return Object.values(body).flat().join(" ") || `the server answered ${response.status}`;
}

// The vaults whose notes this person may change: there a correction can be applied, elsewhere only proposed.
function contributes(vaultId) {
  const mine = document.getElementById("contributes");
  return mine ? JSON.parse(mine.textContent).includes(vaultId) : false;
}

function showChoice(box, item, said) {
  const chosen = item.choice ? item.choice.signal : null;
  box.querySelectorAll("button[data-signal]").forEach((button) => {
    const on = button.dataset.signal === chosen;
    button.classList.toggle("pressed", on);
    button.setAttribute("aria-pressed", String(on));
  });
  const inMenu = MORE.some(([signal]) => signal === chosen);
  box.querySelector("summary").textContent = inMenu ? `More: ${LABELS[chosen]}` : "More…";
  box.querySelector("summary").classList.toggle("pressed", inMenu);
  box.querySelector("button.undo").hidden = !chosen;
  box.querySelector(".choice-status").textContent = said !== undefined ? said
    : chosen ? `Your choice: ${LABELS[chosen]}.` : "";
}

async function choose(box, item, signal, extra = {}) {
  const response = await postJson("/api/feedback/", { context_item: item.id, signal, ...extra });
  if (!response.ok) return problem(response);
  const vote = await response.json();
  item.choice = { id: vote.id, signal: vote.signal };
  const correction = vote.correction;
  let said;
  if (correction) {
    said = correction.status === "applied" ? "Applied: a note with your correction supersedes this passage."
      : "Proposed to the vault's contributors.";
  }
  showChoice(box, item, said);
  box.querySelector("details").open = false;
  return "";
}

async function undo(box, item) {
  if (!item.choice) return;
  const response = await deleteJson(`/api/feedback/${item.choice.id}/`);
  if (!response.ok) {
    showChoice(box, item, "Not undone: " + (await problem(response)));
    return;
  }
  item.choice = null;
  showChoice(box, item, "Undone.");
}

async function press(box, item, signal) {
  if (signal === "correct") { openCorrection(box, item); return; }
  if (item.choice && item.choice.signal === signal) { await undo(box, item); return; }
  const failed = await choose(box, item, signal);
  if (failed) showChoice(box, item, "Not recorded: " + failed);
}

function feedbackBox(item) {
  const chip = ([signal, label]) => {
    const button = el("button", { type: "button", class: "chip", "data-signal": signal, "aria-pressed": "false" },
      label);
    button.addEventListener("click", () => press(box, item, signal));
    return button;
  };
  const undoButton = el("button", { type: "button", class: "chip undo" }, "Undo");
  undoButton.addEventListener("click", () => undo(box, item));
  const box = el("span", { class: "feedback", role: "group", "aria-label": "Your verdict on this passage" },
    ...CHOICES.map(chip),
    el("details", { class: "more" }, el("summary", { class: "chip" }, "More…"),
      el("span", { class: "menu" }, ...MORE.map(chip))),
    undoButton, el("span", { class: "choice-status small muted", role: "status" }));
  showChoice(box, item);
  return box;
}

// The words taken out and put in, as a reader would mark them on paper.
function wordDiff(before, after) {
  const parts = window.Diff.diffWords(before, after);
  if (!parts.some((part) => part.added || part.removed)) return [el("span", { class: "muted" }, "No change yet.")];
  return parts.map((part) => part.added ? el("ins", {}, part.value)
    : part.removed ? el("del", {}, part.value) : document.createTextNode(part.value));
}

function openCorrection(box, item) {
  const editor = el("textarea", { id: "correction-text", rows: "7", spellcheck: "true" });
  editor.value = item.text;
  const diff = el("p", { class: "diff", id: "correction-diff" });
  const error = el("p", { class: "error", role: "alert", hidden: "" });
  const may = contributes(item.vault);
  const apply = may ? el("button", { type: "button", class: "apply" }, "Apply") : null;
  const propose = el("button", { type: "button", class: may ? "secondary propose" : "propose" }, "Propose");
  const cancel = el("button", { type: "button", class: "secondary" }, "Cancel");
  const dialog = el("dialog", { class: "pick correct", "aria-labelledby": "correct-title" },
    el("h2", { id: "correct-title" }, "Correct this passage"),
    el("p", { class: "muted small" }, item.title || item.path),
    el("h3", {}, "As you were shown it"), el("blockquote", { class: "passage" }, item.text),
    el("label", { for: "correction-text" }, "Your correction"), editor,
    el("h3", {}, "What changes"), diff, error,
    el("p", { class: "actions" }, apply, propose, cancel),
    el("p", { class: "muted small" }, may
      ? "Apply: a note with your correction supersedes the passage now. Propose: the vault's contributors decide."
      : "Your correction goes to the vault's contributors, who apply or decline it."));
  const changed = () => {
    diff.replaceChildren(...wordDiff(item.text, editor.value));
    const same = !editor.value.trim() || editor.value.trim() === item.text.trim();
    [apply, propose].forEach((button) => { if (button) button.disabled = same; });
  };
  const send = async (extra) => {
    [apply, propose].forEach((button) => { if (button) button.disabled = true; });
    error.hidden = true;
    const failed = await choose(box, item, "correct", { text: editor.value, ...extra });
    if (!failed) { dialog.close(); return; }
    error.textContent = "Not saved, your text is kept: " + failed;  // the dialog stays open with what was typed
    error.hidden = false;
    changed();
  };
  editor.addEventListener("input", changed);
  apply?.addEventListener("click", () => send({}));
  propose.addEventListener("click", () => send({ propose: true }));
  cancel.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  changed();
  document.body.append(dialog);
  dialog.showModal();
  editor.focus();
}

// Among notes the local scorer, fitted on conversations, only decides whether anything passes and the search's order
// decides what: a passage rated below the threshold that passed says how.
function inSearchOrder(payload, item) {
  return payload.gate?.passed_by === "search order" && item.score < payload.gate.threshold;
}

// Every passage that passed is listed (each can be rated), and the list says which the answer does not quote: a
// reader counting cards against citations sees why they differ.
function sourceList(payload) {
  if (!payload.context.length) return null;
  const quoted = new Set([...(payload.answer || "").matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
  return el("ol", { class: "sources" }, ...payload.context.map((item) => el("li", { "data-item": item.id },
    el("a", { href: noteHref(item), class: "source-link" },
      `[${item.citation}] ${item.title || item.path}${item.section ? ` › ${item.section}` : ""}`),
    el("span", { class: "muted small", title: "How closely the relevance gate judged it to answer, out of 5" },
       ` ${item.path} · relevance ${item.score}/5`,
       inSearchOrder(payload, item) ? " · passed in the search's order" : "",
       quoted.has(item.citation) ? "" : " · not quoted in the answer",
       item.provenance !== "authored" ? ` · ${item.provenance}` : "",
       item.speculative ? " · an explorer's find, shown to be rated, not answered from" : ""),
    feedbackBox(item),
  )));
}

// Implicit signals: the asker opened a unit's note from the answer, or copied answer text that cites it. The
// server keeps one of each per unit and a lost one costs nothing, so they are sent without waiting or telling.
function implicit(itemId, signal) {
  postJson("/api/feedback/", { context_item: itemId, signal }, { keepalive: true }).catch(() => {});
}

function watchImplicit(turn, payload) {
  const cited = new Map(payload.context.filter((i) => i.citation).map((i) => [String(i.citation), i.id]));
  const answer = turn.querySelector(".answer");
  answer.onclick = (event) => {
    const number = event.target.closest("a.cite")?.textContent.replace(/\D/g, "");
    if (cited.has(number)) implicit(cited.get(number), "opened");
  };
  answer.oncopy = () => {
    const copied = String(document.getSelection());
    for (const number of new Set([...copied.matchAll(/\[(\d+)\]/g)].map((m) => m[1]))) {
      if (cited.has(number)) implicit(cited.get(number), "copied");
    }
  };
  turn.querySelectorAll("a.source-link").forEach((link) => {
    link.addEventListener("click", () => implicit(Number(link.closest("li").dataset.item), "opened"));
  });
}

function pickedLine(picked) {
  if (!picked.length) return null;
  return el("p", { class: "picked small" }, "You pointed to: ", ...picked.flatMap((item, i) => [
    i ? ", " : "", el("a", { href: `/notes/${item.note}/` }, item.title || item.path)]),
    el("span", { class: "muted" }, " (questions near this one will weigh it too)"));
}

// "Point to the answer": search every note the asker can read and pick the passage that should have come. A casual
// message searched nothing and asked for nothing: there is no answer to point to.
function pickButton(turn, payload) {
  if (payload.status !== "complete" || payload.fallback === "casual") return null;
  const button = el("button", { type: "button", class: "chip answers-open", "aria-haspopup": "dialog" },
    "Point to the answer…");
  button.addEventListener("click", () => openPicker(turn, payload));
  return el("p", { class: "pick-line" }, button);
}

// A search snippet's «matches» as <mark> elements, as the search page shows them; the note's words stay text.
function highlighted(snippet) {
  return snippet.split(/(«[^«»]*»)/).filter((part) => part !== "")
    .map((part) => (part.startsWith("«") && part.endsWith("»") ? el("mark", {}, part.slice(1, -1)) : part));
}

function openPicker(turn, payload) {
  const input = el("input", { type: "search", "aria-label": "Search your notes", placeholder: "Search your notes",
    autocomplete: "off" });
  const results = el("ol", { class: "pick-results" });
  const status = el("p", { class: "muted small", role: "status" }, "Search for the passage that answers it.");
  const close = el("button", { type: "button", class: "secondary" }, "Close");
  const dialog = el("dialog", { class: "pick", "aria-labelledby": "pick-title" },
    el("h2", { id: "pick-title" }, "Which passage answers it?"),
    el("p", { class: "muted small" }, payload.resolved_query), input, status, results, close);
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  let timer = 0;
  let asked = 0;
  const search = async () => {
    const query = input.value.trim();
    const mine = ++asked;
    if (!query) { results.replaceChildren(); return; }
    status.textContent = "Searching…";
    const response = await fetch(`/api/search/?k=8&q=${encodeURIComponent(query)}`);
    if (mine !== asked) return;  // a newer search is on its way
    if (!response.ok) { status.textContent = "Search failed: " + (await response.text()); return; }
    const hits = (await response.json()).results;
    status.textContent = hits.length ? `${hits.length} passage(s).` : "Nothing found: try other words.";
    results.replaceChildren(...hits.map((hit) => {
      const choose = el("button", { type: "button", class: "chip answers-pick" }, "This answers it");
      choose.addEventListener("click", () => pick(turn, payload, hit, choose, dialog, status));
      const where = ` ${hit.path}` + (hit.filed ? " · filed by the Librarian from a conversation" : "");
      return el("li", {}, el("strong", {}, hit.title || hit.path), el("span", { class: "muted small" }, where),
        el("p", { class: "small" }, ...highlighted(hit.snippet_text)), choose);
    }));
  };
  input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(search, 250); });
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); clearTimeout(timer); search(); } });
  document.body.append(dialog);
  dialog.showModal();
  input.focus();
}

async function pick(turn, payload, hit, button, dialog, status) {
  button.disabled = true;
  const response = await postJson("/api/feedback/answers/", { message: payload.message, chunk: hit.chunk });
  if (!response.ok) {
    button.disabled = false;
    status.textContent = "Not recorded: " + (await response.text());
    return;
  }
  payload.picked = [...(payload.picked || []).filter((p) => p.note !== hit.note),
    { note: hit.note, title: hit.title, path: hit.path }];
  turn.querySelector(".picked")?.remove();
  turn.querySelector(".pick-line").before(pickedLine(payload.picked));
  dialog.close();
}

// A passage's place: its note's page at the section it was read from, when the server says which.
function noteHref(item) {
  return item.href || `/notes/${item.note}/`;
}

// Candidates of one note are told apart by their section; each passage reads as plain text, not as Markdown.
function gateTable(payload) {
  if (!payload.candidates.length) return null;
  const rows = payload.candidates.map((item) => el("tr", { class: item.survived ? "passed" : "" },
    el("td", {}, String(item.score)), el("td", {}, item.survived ? "passed" : "cut"),
    el("td", {}, el("a", { href: noteHref(item) }, item.path + (item.section ? ` › ${item.section}` : ""))),
    el("td", { class: "muted small" }, clipped(item.readable ?? item.text, 140))));
  return el("details", { class: "gate" },
    el("summary", {}, `Gate: ${payload.candidates.length} candidates rated, ${payload.context.length} passed ` +
      (payload.gate.passed_by === "search order"
        ? `in the search's order, as the notes speak to the question: one reached the threshold ` +
          `${payload.gate.threshold} or is close in meaning (${payload.gate.model})`
        : `(threshold ${payload.gate.threshold}, ${payload.gate.model})`)),
    el("table", {}, el("tr", {}, el("th", {}, "score"), el("th", {}, ""), el("th", {}, "note"), el("th", {}, "text")),
      ...rows));
}

function clipped(text, length) {
  return text.length > length ? `${text.slice(0, length - 1).trimEnd()}…` : text;
}

// The plan lists the steps searched, then those a stop or Skip left unsearched; a step that only reworded the
// question and found nothing new is searched but not listed, so the summary counts it apart.
function searchedSteps(research) {
  return research.dispatches - (research.hidden || 0);
}

function planSummary(research) {
  const hidden = research.hidden || 0;
  const steps = (research.sub_questions || []).length;
  return `Deep research: ${searchedSteps(research)} of ${steps} step(s) searched` +
    (hidden ? `, and ${hidden} not listed that only reworded the question and found nothing new` : "") +
    (research.cancelled ? ", skipped" : "");
}

function explorationPaths(payload) {
  const research = payload.research || {};
  const paths = research.paths || [];
  if (!research.ran || !paths.length) return null;
  const input = document.getElementById("message");
  const steps = research.sub_questions || [];
  const plan = el("details", { class: "plan muted small" },
    el("summary", {}, planSummary(research)),
    el("p", {}, research.reason),
    el("ol", {}, ...steps.map((sub, i) => el("li", {}, sub,
      i < searchedSteps(research) ? null : el("span", { class: "unsearched" }, " (not searched)")))));
  return el("div", { class: "paths" }, plan,
    el("p", { class: "muted small" }, "Explore further (fills the box, you send it):"),
    ...paths.map((sub) => {
      const button = el("button", { type: "button", class: "chip path" }, sub);
      button.addEventListener("click", () => { input.value = sub; input.focus(); });
      return button;
    }));
}

// The server renders an answer's Markdown (raw HTML escaped, citations linked): the page only places it.
function showAnswerHtml(answer, html) {
  answer.innerHTML = html;
}

function renderAnswer(turn, payload) {
  const answer = turn.querySelector(".answer");
  showAnswerHtml(answer, payload.answer_html);
  const label = payload.grounded
    ? el("span", { class: "badge grounded" }, `grounded in ${payload.context.length} passage(s)`)
    : el("span", { class: "badge fallback" }, FALLBACKS[payload.fallback] || "not grounded");
  turn.querySelector(".status").replaceChildren(label);
  const prepared = payload.prewarmed ? [payload.research.reason] : [];  // context ready before the question
  const notices = [...prepared, ...payload.notices].map((n) => el("p", { class: "notice small" }, n));
  const extras = [...notices, sourceList(payload), pickedLine(payload.picked || []), pickButton(turn, payload),
    explorationPaths(payload), gateTable(payload)].filter((node) => node !== null);
  // The live research log stays, folded, as a record of what was searched.
  const log = turn.querySelector(".research");
  log?.querySelector(".skip")?.remove();
  log?.classList.add("finished");
  if (log) log.open = false;
  turn.querySelector(".extras").replaceChildren(...extras);
  watchImplicit(turn, payload);
}

function newTurn(question) {
  const turn = el("article", { class: "turn" },
    el("p", { class: "question" }, question),
    el("div", { class: "reply" }, el("p", { class: "status muted small" }, "Sending…"),
      el("div", { class: "answer" }), el("div", { class: "extras" })));
  document.getElementById("turns").append(turn);
  return turn;
}

function stream(turn, url, form) {
  const source = new EventSource(url);
  const status = turn.querySelector(".status");
  let finished = false;
  const finish = (error) => {
    if (finished) return;
    finished = true;
    source.close();
    if (error) showError(error);
    done(form);
  };
  const on = (kind, handler) => source.addEventListener(kind, (e) => handler(JSON.parse(e.data)));
  on("status", (data) => { status.textContent = data.text; });
  on("context", (data) => {
    const passed = data.items.filter((i) => i.survived).length;
    status.textContent = `${data.items.length} candidates rated, ${passed} passed the gate. Writing…`;
  });
  on("research", (data) => researchProgress(turn, data, form));
  // A delta without html is held back: it shows with the next rendering (a tenth of a second later at most).
  on("delta", (data) => { if (data.html !== undefined) showAnswerHtml(turn.querySelector(".answer"), data.html); });
  on("done", (data) => { renderAnswer(turn, data); finish(""); });
  on("failure", (data) => { status.textContent = ""; finish(data.detail); });
  on("busy", (data) => { status.textContent = ""; finish(data.detail); });
  on("timeout", (data) => {
    status.textContent = "";
    if (data.status !== "pending") finish("Still being answered: reload this conversation in a moment.");
    else if (data.queued) finish("Waiting its turn behind other answers; your question is kept and will be answered.");
    else finish("No worker has picked this answer up yet; your question is kept and will be answered.");
  });
  source.onerror = () => finish("The connection dropped; your question is saved in this conversation.");
}

// Deep research shows its plan and dispatches while it runs, open; a question the judge sends to one ordinary search
// shows nothing of the judging: its reason is the machinery's, not the asker's.
function researchProgress(turn, data, form) {
  let box = turn.querySelector(".research");
  if (!box) {
    if (!(data.step === "judged" && data.research)) return;
    box = el("details", { class: "research small", open: "" }, el("summary", {}, `Deep research: ${data.reason}`));
    turn.querySelector(".reply").insertBefore(box, turn.querySelector(".answer"));
  }
  if (data.step === "judged") {
    const skip = el("button", { type: "button", class: "chip skip" }, "Skip");
    skip.addEventListener("click", async () => {
      skip.disabled = true;
      const conversation = form.querySelector("[name=conversation]").value;
      await fetch(`/api/conversations/${conversation}/cancel/`, {
        method: "POST", headers: { "X-CSRFToken": csrf() },
      });
      skip.textContent = "Skipping…";
    });
    box.append(skip);
  } else if (data.step === "planned") {
    box.append(el("p", { class: "muted" }, `${data.sub_questions.length} sub-questions planned.`));
  } else if (data.step === "dispatch") {
    box.append(el("p", { class: "dispatch muted" }, `${data.n}. ${data.sub_question} — ${data.new} new`));
  } else if (data.step === "hidden") {
    box.append(el("p", { class: "muted" }, "A step that only reworded the question found nothing new (not listed)."));
  }
}

function showError(text) {
  const box = document.getElementById("chat-error");
  box.textContent = text;
  box.hidden = !text;
}

function done(form) {
  form.querySelector("[type=submit]")?.removeAttribute("disabled");
  document.getElementById("send").disabled = false;
}

async function send(event) {
  event.preventDefault();
  const form = event.target;
  const input = document.getElementById("message");
  const question = input.value;
  showError("");
  document.getElementById("send").disabled = true;
  const response = await fetch("/chat/send/", { method: "POST", body: new FormData(form) });
  const body = await response.json().catch(() => ({ detail: "The server did not answer." }));
  if (!response.ok) {
    showError(body.detail);
    if (body.conversation) form.querySelector("[name=conversation]").value = body.conversation;
    done(form);
    return;
  }
  input.value = "";
  form.querySelector("[name=conversation]").value = body.conversation;
  history.replaceState(null, "", `?c=${body.conversation}`);
  listConversation(body.conversation, question);
  stream(newTurn(question), body.stream, form);
}

// The server's "j M" (5 Dec), so that a conversation added here reads like the ones listed with the page.
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

// A conversation just started joins the list at once, titled as the server titles it (its first question).
function listConversation(id, question) {
  const list = document.querySelector("ul.conversations");
  if (!list || list.querySelector(`a[href="?c=${id}"]`)) return;
  list.querySelectorAll("li.muted").forEach((placeholder) => placeholder.remove());
  list.querySelectorAll("li.current").forEach((item) => item.classList.remove("current"));
  const now = new Date();
  list.prepend(el("li", { class: "current" }, el("a", { href: `?c=${id}` }, question.slice(0, 80)), " ",
    el("time", { class: "muted small", datetime: now.toISOString() }, `${now.getDate()} ${MONTHS[now.getMonth()]}`)));
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("ask-form").addEventListener("submit", send);
  const current = JSON.parse(document.getElementById("current-conversation").textContent);
  for (const turn of current ? current.turns : []) renderAnswer(newTurn(turn.question), turn);
});
