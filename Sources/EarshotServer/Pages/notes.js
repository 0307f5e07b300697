// Notes: record or add a recording, watch its stages, search, read and play a note.
"use strict";
const $ = (id) => document.getElementById(id);
let current = null;   // the note shown
let microphone = null, chunks = [], ticker = null;

function badge(status) {
  const kind = status === "ready" ? "ready" : status.includes("failed") ? "failed" : "working";
  return `<span class="badge ${kind}">${Earshot.escape(status)}</span>`;
}

// Where a note's stages stand, in the words the list's badge uses (the server's Note.status): "ready",
// "summarise failed", "transcribe…", "waiting: embed".
function stageStatus(stages) {
  if (stages.every((s) => s.state === "done")) return "ready";
  const failed = stages.find((s) => s.state === "failed"), running = stages.find((s) => s.state === "running");
  if (failed) return `${failed.stage} failed`;
  if (running) return `${running.stage}…`;
  const next = stages.find((s) => s.state === "pending");
  return next ? `waiting: ${next.stage}` : "";
}

function title(note) { return note.title || `(untitled: ${note.source})`; }

async function refresh() {
  try {
    const notes = await Earshot.api("/api/notes?limit=200");
    $("empty").hidden = notes.length > 0;
    $("notes").innerHTML = notes.map((n) => `<li><button type="button" data-id="${n.id}">
      <strong>${Earshot.escape(title(n))}</strong> ${badge(n.status)}
      <span class="muted">· ${Earshot.clock(n.duration)} · ${new Date(n.created).toLocaleString()}</span></button></li>`).join("");
    if (current) {
      const fresh = notes.find((n) => n.id === current.id);
      if (fresh && fresh.status !== current.status) show(current.id, false);
    }
  } catch (error) {
    $("record-status").textContent = error.message;
  }
}

// a summary as the notes keep it: a paragraph, then each template section as "Heading:" and "- point" lines
function summaryHTML(text) {
  if (!text) return '<p class="muted">(not yet)</p>';
  return text.split("\n\n").map((block) => {
    const lines = block.split("\n");
    if (lines.length > 1 && lines[0].endsWith(":") && lines.slice(1).every((l) => l.startsWith("- "))) {
      return `<h3>${Earshot.escape(lines[0].slice(0, -1))}</h3><ul>${lines.slice(1).map((l) => `<li>${Earshot.escape(l.slice(2))}</li>`).join("")}</ul>`;
    }
    return `<p>${Earshot.escape(block)}</p>`;
  }).join("");
}

// the summary templates: the note's choice, and people's own kept or removed here
async function loadTemplates() {
  const templates = await Earshot.api("/api/templates");
  const chosen = $("note-template").value;
  $("note-template").innerHTML = templates.map((t) => `<option value="${Earshot.escape(t.name)}" title="${Earshot.escape(t.instructions)}">${
    Earshot.escape(t.name)}${t.built_in ? "" : " (yours)"}</option>`).join("");
  if (chosen) $("note-template").value = chosen;
  $("template-list").innerHTML = templates.map((t) => `<li><strong>${Earshot.escape(t.name)}</strong>
    <span class="muted">${Earshot.escape(t.sections.length ? t.sections.join(", ") : "the summary alone")}</span>
    ${t.built_in ? "" : `<button type="button" class="link" data-remove-template="${Earshot.escape(t.name)}">remove</button>`}</li>`).join("");
}

$("template-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!current) return;
  const template = $("note-template").value;
  try {
    await Earshot.api(`/api/notes/${current.id}`, { method: "PATCH", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ template }) });
    $("template-status").textContent = `Writing the summary again with the ${template} template…`;
    await show(current.id, false);
  } catch (error) {
    Earshot.showError($("template-status"), error.message);
  }
});

$("new-template").addEventListener("submit", async (event) => {
  event.preventDefault();
  const body = { name: $("template-name").value, instructions: $("template-instructions").value,
    sections: $("template-sections").value.split(",").map((h) => h.trim()).filter(Boolean) };
  try {
    const made = await Earshot.api("/api/templates", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    $("new-template-status").textContent = `Template ${made.name} kept: ${made.sections.join(", ")}.`;
    $("new-template").reset();
    await loadTemplates();
  } catch (error) {
    Earshot.showError($("new-template-status"), error.message);
  }
});

$("template-list").addEventListener("click", async (event) => {
  const b = event.target.closest("button[data-remove-template]");
  if (!b) return;
  try {
    const removed = await Earshot.api(`/api/templates/${encodeURIComponent(b.dataset.removeTemplate)}`, { method: "DELETE" });
    $("new-template-status").textContent = `Template ${removed.removed} removed` +
      (removed.notes.length ? `; notes ${removed.notes.join(", ")} keep their summaries.` : ".");
    await loadTemplates();
  } catch (error) {
    Earshot.showError($("new-template-status"), error.message);
  }
});

async function show(id, focus = true) {
  const note = await Earshot.api(`/api/notes/${id}`);
  const status = stageStatus(note.stages);
  current = { id, status, note };
  $("note").hidden = false;
  $("note-title").textContent = note.title || `(untitled: ${note.source})`;
  $("note-status").outerHTML = badge(status).replace("<span", '<span id="note-status"');
  $("note-meta").textContent = `${note.source} · ${Earshot.clock(note.duration)} · ${new Date(note.created).toLocaleString()}` +
    (note.tags.length ? ` · tags: ${note.tags.join(", ")}` : "");
  if ($("player").dataset.id !== String(id)) { $("player").src = `/api/notes/${id}/audio`; $("player").dataset.id = id; }
  $("note-summary").innerHTML = summaryHTML(note.summary);
  $("note-template").value = note.template;
  if (status === "ready" && $("template-status").textContent.startsWith("Writing")) $("template-status").textContent = "";
  // no action items is an answer only once the summary stage has run
  const summarised = note.stages.some((s) => s.stage === "summarise" && s.state === "done");
  // each item: a box to tick it off, its owner, and the moment it was said (a click plays it)
  $("note-actions").innerHTML = note.actions.map((a, i) => `<li><label><input type="checkbox" data-item="${i + 1}"${a.done ? " checked" : ""}>
    ${a.owner ? `<strong>${Earshot.escape(a.owner)}</strong>: ` : ""}${Earshot.escape(a.text)}</label>${a.start == null ? ""
    : ` <button type="button" class="said-at" data-start="${a.start}" aria-label="Play where it was said (${Earshot.clock(a.start)})">${Earshot.clock(a.start)}</button>`}</li>`)
    .join("") || `<li class=muted>${summarised ? "none" : "(not yet)"}</li>`;
  // a button per word when the transcript has word times (per segment otherwise): the word being played is
  // highlighted, and a click on a word plays from there; who said it where the voice changes, a colour per voice
  // (a speaker's segments in a row read as one turn under one name)
  const voices = new Map();
  const who = (s, i) => (i > 0 && note.segments[i - 1].speaker === s.speaker) ? "" : Earshot.speakerTag(s.speaker, voices);
  $("note-transcript").classList.toggle("by-speaker", note.segments.some((s) => s.speaker));
  $("note-transcript").innerHTML = note.segments.map((s, i) => who(s, i) + ((s.words || []).length
    ? `<span class="segment" data-index="${i}">${s.words.map((w) =>
        `<button type="button" data-start="${w.start}" data-end="${w.end}">${Earshot.escape(w.word.trim())}</button>`).join(" ")}</span>`
    : `<button type="button" data-start="${s.start}" data-end="${s.end}" data-index="${i}">${Earshot.escape(s.text)}</button>`)).join(" ")
    || '<span class="muted">(transcribing…)</span>';
  // a voice of the note can be named (SPEAKER_02 is Ruth): the transcript and, once rewritten, the summary say so
  $("rename-speaker").hidden = voices.size === 0;
  $("speaker-from").innerHTML = [...voices.keys()].map((v) => `<option>${Earshot.escape(v)}</option>`).join("");
  nameVoiceHint(note);
  $("new-title").value = note.title;
  for (const format of ["md", "txt", "srt", "vtt", "json"]) $(`export-${format}`).href = `/api/notes/${id}/export?format=${format}`;
  // opened from the list: the note at the top of the screen (on a phone it sits below the whole list)
  if (focus) { $("note").scrollIntoView({ block: "start" }); $("note-title").focus({ preventScroll: true }); }
}

// an unnamed voice of this note heard in other notes too: offer to name it once, for all of them, on the People page
async function nameVoiceHint(note) {
  const hint = $("name-voice-hint");
  try {
    const people = await Earshot.api("/api/people");
    const again = people.filter((p) => p.name === null && p.notes.length >= 2 && p.notes.includes(note.id));
    hint.hidden = again.length === 0;
    hint.innerHTML = again.map((p) => {
      const here = p.appearances.find((a) => a.note === note.id);
      const label = note.segments.some((s) => s.speaker) ? `${Earshot.escape(here.label)} is ` : "This voice is ";
      return `${label}heard in ${p.notes.length} notes: <a href="/people#person-${p.id}">name this voice?</a>`;
    }).join("<br>");
  } catch (error) {
    hint.hidden = true;
  }
}

// the transcript follows the player; a click on a word (or segment) seeks to it
$("player").addEventListener("timeupdate", () => {
  const t = $("player").currentTime;
  for (const b of document.querySelectorAll("#note-transcript button")) {
    b.classList.toggle("current", t >= Number(b.dataset.start) && t < Number(b.dataset.end));
  }
});
$("rename-speaker").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!current) return;
  const body = JSON.stringify({ from: $("speaker-from").value, to: $("speaker-name").value, enroll: $("speaker-enroll").checked });
  $("rename-status").textContent = $("speaker-enroll").checked ? "Enrolling the voice…" : "";
  try {
    await Earshot.api(`/api/notes/${current.id}/speakers`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    $("speaker-name").value = "";
    $("rename-status").textContent = $("speaker-enroll").checked
      ? "Named and enrolled: later notes in which this voice speaks will name it; the summary is being written again."
      : "Named; the summary is being written again.";
    $("speaker-enroll").checked = false;
    await show(current.id, false);
    refresh();
  } catch (error) {
    Earshot.showError($("rename-status"), error.message);
  }
});
$("note-actions").addEventListener("change", async (event) => {
  const box = event.target.closest("input[data-item]");
  if (!box || !current) return;
  try {
    await Earshot.api(`/api/notes/${current.id}/actions/${box.dataset.item}`, { method: "PATCH",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ done: box.checked }) });
  } catch (error) {
    box.checked = !box.checked;
    Earshot.showError($("record-status"), error.message);
  }
});
$("note-actions").addEventListener("click", (event) => {
  const b = event.target.closest("button[data-start]");
  if (!b) return;
  $("player").currentTime = Number(b.dataset.start);
  $("player").play().catch(() => {});
});
// correcting: a click on a sentence opens it for editing instead of playing it; the times stay, the words change
let correcting = false;
async function showUndo() {
  if (!current) return;
  try {
    const corrections = await Earshot.api(`/api/notes/${current.id}/corrections`);
    $("undo-correction").hidden = corrections.length === 0;
  } catch (error) {
    $("undo-correction").hidden = true;
  }
}
$("correct-toggle").addEventListener("click", () => {
  correcting = !correcting;
  $("correct-toggle").setAttribute("aria-pressed", String(correcting));
  $("correct-toggle").textContent = correcting ? "Done correcting" : "Correct the transcript";
  $("note-transcript").classList.toggle("correcting", correcting);
  $("correct-status").textContent = correcting ? "Click a sentence to correct it." : "";
  showUndo();
});
function openCorrection(index) {
  const segment = current.note.segments[index];
  const shown = document.querySelector(`#note-transcript [data-index="${index}"]`);
  if (!segment || !shown) return;
  shown.outerHTML = `<form class="correct-form row" data-index="${index}">
    <label class="sr-only" for="correct-text">Corrected sentence</label>
    <input id="correct-text" class="grow" maxlength="2000" value="${Earshot.escape(segment.text.trim())}">
    <button type="submit">Save</button> <button type="button" class="secondary" data-cancel>Cancel</button></form>`;
  $("correct-text").focus();
}
$("note-transcript").addEventListener("submit", async (event) => {
  const form = event.target.closest("form.correct-form");
  if (!form || !current) return;
  event.preventDefault();
  try {
    await Earshot.api(`/api/notes/${current.id}/segments/${Number(form.dataset.index) + 1}`, { method: "PATCH",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text: $("correct-text").value }) });
    $("correct-status").textContent = "Corrected: search finds the new words now.";
    await show(current.id, false);
    showUndo();
  } catch (error) {
    Earshot.showError($("correct-status"), error.message);
  }
});
$("undo-correction").addEventListener("click", async () => {
  if (!current) return;
  try {
    const result = await Earshot.api(`/api/notes/${current.id}/corrections/undo`, { method: "POST" });
    $("correct-status").textContent = result.undone ? `Sentence ${result.undone.segment} is as it was.` : "Nothing to undo.";
    await show(current.id, false);
    showUndo();
  } catch (error) {
    Earshot.showError($("correct-status"), error.message);
  }
});
$("note-transcript").addEventListener("click", (event) => {
  if (event.target.closest("form.correct-form")) {
    if (event.target.closest("button[data-cancel]")) show(current.id, false);
    return;
  }
  if (correcting) {
    const shown = event.target.closest("[data-index]");
    if (shown) openCorrection(Number(shown.dataset.index));
    return;
  }
  const b = event.target.closest("button");
  if (!b) return;
  $("player").currentTime = Number(b.dataset.start);
  $("player").play().catch(() => {});
});

for (const list of [$("notes"), $("hits")]) {
  list.addEventListener("click", (event) => {
    const b = event.target.closest("button[data-id]");
    if (b) show(Number(b.dataset.id));
  });
}

async function upload(blob, name) {
  const form = new FormData();
  form.append("file", blob, name);
  if ($("speakers").value) form.append("speakers", $("speakers").value);  // else the voices are counted
  $("record-status").textContent = `Saving ${name}…`;
  try {
    const note = await Earshot.api("/api/notes", { method: "POST", body: form });
    $("record-status").textContent = `Saved as note ${note.id}; transcribing in the background.`;
    await refresh();
    show(note.id, false);
  } catch (error) {
    Earshot.showError($("record-status"), error.message);
  }
}

$("record").addEventListener("click", async () => {
  if (microphone) {
    clearInterval(ticker);
    await microphone.stop();
    microphone = null;
    $("record").textContent = "● Record";
    $("record").classList.remove("recording");
    $("level").value = 0;
    await upload(Earshot.wav(chunks), `recording-${new Date().toISOString().replaceAll(":", "-").slice(0, 19)}.wav`);
    return;
  }
  chunks = [];
  microphone = new Microphone();
  try {
    await microphone.start((chunk) => chunks.push(chunk), (level) => { $("level").value = level; });
  } catch (error) {
    microphone = null;
    Earshot.showError($("record-status"), `No microphone: ${error.message}`);
    return;
  }
  $("record").textContent = "■ Stop and save";
  $("record").classList.add("recording");
  $("record-status").textContent = "Recording…";
  ticker = setInterval(() => { $("timer").textContent = Earshot.clock(microphone ? microphone.seconds : 0); }, 250);
});

// Recordings made elsewhere go through the import: dated when they were recorded (the container's time, else the
// file's own, which only the browser still knows), skipped when their audio is already a note.
async function importFiles(files) {
  const results = $("import-results");
  results.innerHTML = "";
  let imported = 0, skipped = 0, failed = 0, last = null;
  for (const [i, file] of files.entries()) {
    $("import-status").textContent = `Importing ${i + 1} of ${files.length}: ${file.name}…`;
    const form = new FormData();
    form.append("file", file, file.name);
    form.append("modified", String(file.lastModified));
    if ($("speakers").value) form.append("speakers", $("speakers").value);
    const item = document.createElement("li");
    try {
      const result = await Earshot.api("/api/notes/import", { method: "POST", body: form });
      if (result.outcome === "imported") {
        imported++;
        last = result.note;
        const when = new Date(result.recorded).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
        item.innerHTML = `<button type="button" class="link" data-id="${result.note}">${Earshot.escape(file.name)}</button>
          <span class="muted">note ${result.note}, recorded ${Earshot.escape(when)}</span>`;
      } else {
        skipped++;
        item.innerHTML = `<span>${Earshot.escape(file.name)}</span> <span class="muted">skipped: the same audio as
          <button type="button" class="link" data-id="${result.note}">note ${result.note}</button></span>`;
      }
    } catch (error) {
      failed++;
      item.innerHTML = `<span class="error">${Earshot.escape(error.message)}</span>`;
    }
    results.append(item);
  }
  $("import-status").textContent = `Imported ${imported}, skipped ${skipped} already in your notes` +
    (failed ? `, ${failed} could not be read.` : ".") + (imported ? " Transcribing in the background." : "");
  await refresh();
  if (last) show(last, false);
}

// the files of a dropped folder, at every depth (hidden entries skipped, as the command line does)
async function droppedFiles(entry) {
  if (entry.name.startsWith(".")) return [];
  if (entry.isFile) return [await new Promise((resolve, reject) => entry.file(resolve, reject))];
  const reader = entry.createReader(), files = [];
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) return files;
    for (const child of batch) files.push(...await droppedFiles(child));
  }
}

$("upload").addEventListener("change", async () => {
  const files = [...$("upload").files];
  $("upload").value = "";
  await importFiles(files);
});

$("import-results").addEventListener("click", (event) => {
  const b = event.target.closest("button[data-id]");
  if (b) show(Number(b.dataset.id));
});

const drop = $("drop");
drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", async (event) => {
  event.preventDefault();
  drop.classList.remove("over");
  const entries = [...event.dataTransfer.items].map((item) => item.webkitGetAsEntry && item.webkitGetAsEntry()).filter(Boolean);
  const files = entries.length ? (await Promise.all(entries.map(droppedFiles))).flat() : [...event.dataTransfer.files];
  const audio = files.filter((file) => entries.length === 0 || /^(audio|video)\//.test(file.type) ||
    /\.(m4a|mp3|wav|ogg|oga|opus|flac|aac|aif|aiff|webm|caf|amr|3gp|mp4|mka|wma)$/i.test(file.name));
  await importFiles(audio);
});

$("search").addEventListener("submit", async (event) => {
  event.preventDefault();
  const q = $("query").value.trim();
  if (!q) return;
  try {
    const hits = await Earshot.api(`/api/notes?q=${encodeURIComponent(q)}&mode=${$("mode").value}`);
    $("hits").innerHTML = hits.length ? hits.map((h) => `<li><button type="button" data-id="${h.id}">
      <strong>${Earshot.escape(h.title || "(untitled)")}</strong><br><span class="muted">${Earshot.highlight(h.snippet)}</span></button></li>`).join("")
      : '<li class="muted">Nothing matches.</li>';
  } catch (error) {
    $("hits").innerHTML = `<li class="error">${Earshot.escape(error.message)}</li>`;
  }
});
$("clear").addEventListener("click", () => { $("query").value = ""; $("hits").innerHTML = ""; });

// Ask: the passages found come at once, the answer as it is written, then the checked answer, whose numbers and
// citations each play the moment they cite
function passageLine(p, number) {
  const who = p.speaker ? ` · ${Earshot.escape(p.speaker)}` : "";
  return `<li><button type="button" class="cite-at" data-note="${p.note}" data-start="${p.start}">${number ? `[${number}] ` : ""}` +
    `<strong>${Earshot.escape(p.title || `note ${p.note}`)}</strong> <span class="muted">· ${new Date(p.created).toLocaleDateString()} · ` +
    `${Earshot.clock(p.start)}${who}</span><br><q>${Earshot.escape(p.text)}</q></button></li>`;
}
$("ask").addEventListener("submit", async (event) => {
  event.preventDefault();
  const question = $("question").value.trim();
  if (!question) return;
  const button = $("ask").querySelector("button");
  button.disabled = true;
  $("ask-status").textContent = "Looking through the notes…";
  $("answer").hidden = true; $("answer").textContent = ""; $("answer").classList.add("writing");
  $("closest-title").hidden = true; $("citations").innerHTML = "";
  try {
    const answer = await Earshot.stream("/api/notes/ask", JSON.stringify({ question }), (name, data) => {
      if (name === "passages") {
        $("ask-status").textContent = data.length ? `Answering from ${data.length} passage${data.length > 1 ? "s" : ""}…` : "Nothing in the notes comes close.";
      } else if (name === "token") {
        $("answer").hidden = false;
        $("answer").textContent += data.text;
      }
    });
    $("answer").classList.remove("writing");
    $("answer").hidden = false;
    // the numbers are the server's, checked against what the model was given: each becomes a button to its moment
    $("answer").innerHTML = Earshot.escape(answer.answer).replace(/\[(\d+)\]/g, (whole, n) => {
      const p = answer.citations[Number(n) - 1];
      return p ? `<button type="button" class="cite-at said-at" data-note="${p.note}" data-start="${p.start}" ` +
        `aria-label="Play the moment cited: note ${p.note} at ${Earshot.clock(p.start)}">${whole}</button>` : "";
    });
    const listed = answer.answered ? answer.citations : answer.passages;
    $("closest-title").hidden = answer.answered || listed.length === 0;
    $("citations").innerHTML = listed.map((p, i) => passageLine(p, answer.answered ? i + 1 : 0)).join("");
    $("ask-status").textContent = answer.answered ? "" : "The notes do not answer that.";
  } catch (error) {
    $("ask-status").textContent = error.message;
  } finally {
    button.disabled = false;
  }
});
// a citation opens its note and plays from the moment cited
document.addEventListener("click", async (event) => {
  const b = event.target.closest(".cite-at");
  if (!b) return;
  await show(Number(b.dataset.note));
  const player = $("player"), start = Number(b.dataset.start);
  const seek = () => { player.currentTime = start; player.play().catch(() => {}); };
  if (player.readyState >= 1) seek(); else player.addEventListener("loadedmetadata", seek, { once: true });
});

$("edit").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!current) return;
  await Earshot.api(`/api/notes/${current.id}`, { method: "PATCH", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ title: $("new-title").value }) });
  await refresh();
  show(current.id, false);
});

$("delete").addEventListener("click", async () => {
  if (!current || !confirm("Delete this note and its recording?")) return;
  await Earshot.api(`/api/notes/${current.id}`, { method: "DELETE" });
  current = null;
  $("note").hidden = true;
  refresh();
});

// The server pushes every change (a note added, edited or deleted, a stage started, done or failed) as a
// Server-Sent Event: the list is read again then, and the note shown when it is the one that changed. A dropped
// stream reconnects by itself and says "ready" again, and the list is read afresh, so nothing missed stays missed.
const touched = new Set();
let reading = null;
function changed(note) {
  if (note !== undefined) touched.add(note);
  if (reading) return;
  reading = setTimeout(async () => {
    reading = null;
    await refresh();
    if (current && touched.has(current.id)) show(current.id, false);
    touched.clear();
  }, 100);
}
const events = new EventSource("/api/notes/events");
events.addEventListener("ready", () => changed());
events.addEventListener("note", (event) => changed(JSON.parse(event.data).note));

// a link to one note (the Listen page's "Saved as note 2", the People page's notes) opens it
function showLinked() {
  const linked = /^#note-(\d+)$/.exec(location.hash);
  if (linked) show(Number(linked[1]));
}
window.addEventListener("hashchange", showLinked);
// the templates first: the note shown picks its own among them
loadTemplates().catch((error) => Earshot.showError($("new-template-status"), error.message)).finally(showLinked);
