// Transcribe: files in, per-file upload progress, the transcript (with who spoke each part, when asked), downloads
// as txt, srt, vtt or json.
"use strict";
const $ = (id) => document.getElementById(id);

function stamp(seconds, separator) {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3600000), m = Math.floor(ms / 60000) % 60, s = Math.floor(ms / 1000) % 60;
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}${separator}${String(ms % 1000).padStart(3, "0")}`;
}

// with speakers: "Name: " in txt and SRT, WebVTT's voice tag <v Name> (as `earshot transcribe --speakers` writes)
const said = (s) => (s.speaker ? `${s.speaker}: ` : "") + s.text.trim();
const formats = {
  txt: (r) => (r.segments.some((s) => s.speaker) ? r.segments.map((s) => said(s) + "\n").join("") : r.text + "\n"),
  srt: (r) => r.segments.map((s, i) => `${i + 1}\n${stamp(s.start, ",")} --> ${stamp(s.end, ",")}\n${said(s)}\n`).join("\n"),
  vtt: (r) => "WEBVTT\n\n" + r.segments.map((s) => `${stamp(s.start, ".")} --> ${stamp(s.end, ".")}\n${s.speaker ? `<v ${s.speaker.replace(/>/g, "")}>` : ""}${s.text.trim()}\n`).join("\n"),
  json: (r) => JSON.stringify(r, null, 2),
};

function transcribe(file) {
  const item = document.createElement("li");
  item.className = "card";
  item.innerHTML = `<h2>${Earshot.escape(file.name)}</h2><progress max="1" value="0" aria-label="Progress of ${Earshot.escape(file.name)}"></progress>
    <p class="muted" role="status">Uploading…</p>`;
  $("jobs").prepend(item);
  const form = new FormData();
  form.append("file", file, file.name);
  form.append("model", $("model").value);
  form.append("response_format", $("speakers").checked ? "diarized_json" : "verbose_json");
  const request = new XMLHttpRequest();
  request.open("POST", "/v1/audio/transcriptions");
  request.upload.onprogress = (event) => { if (event.lengthComputable) item.querySelector("progress").value = 0.5 * event.loaded / event.total; };
  request.upload.onload = () => { item.querySelector("[role=status]").textContent = "Transcribing…"; item.querySelector("progress").removeAttribute("value"); };
  request.onload = () => {
    let answer = {};
    try { answer = JSON.parse(request.responseText); } catch (_) { /* shown below */ }
    if (request.status !== 200) {
      Earshot.showError(item.querySelector("[role=status]"), answer.error ? answer.error.message : request.statusText);
      item.querySelector("progress").remove();
      return;
    }
    const base = file.name.replace(/\.[^.]+$/, "");
    const order = new Map();
    item.innerHTML = `<h2>${Earshot.escape(file.name)}</h2><p class="muted">${Earshot.clock(answer.duration)} of audio</p>
      ${(answer.segments || []).length
        ? `<ol class="plain segments">${answer.segments.map((s) =>
            `<li><span class="muted">${Earshot.clock(s.start)}–${Earshot.clock(s.end)}</span> ${Earshot.speakerTag(s.speaker, order)}${Earshot.escape(s.text.trim())}</li>`).join("")}</ol>`
        : '<p class="muted">(no speech)</p>'}
      <div class="row">${Object.keys(formats).map((f) => `<button type="button" class="secondary" data-format="${f}">Download .${f}</button>`).join("")}</div>`;
    item.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-format]");
      if (!button) return;
      const format = button.dataset.format;
      Earshot.download(new Blob([formats[format](answer)], { type: "text/plain" }), `${base}.${format}`);
    });
  };
  request.onerror = () => Earshot.showError(item.querySelector("[role=status]"), "The server could not be reached.");
  request.send(form);
}

$("files").addEventListener("change", () => { for (const file of $("files").files) transcribe(file); $("files").value = ""; });
const drop = $("drop");
drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (event) => {
  event.preventDefault();
  drop.classList.remove("over");
  for (const file of event.dataTransfer.files) transcribe(file);
});
