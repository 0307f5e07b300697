// Voice: enrol a person from five prompted 10 s recordings, then check or identify who is speaking.
"use strict";
const $ = (id) => document.getElementById(id);
const clips = [];
let prompts = [];

async function loadPrompts() {
  const answer = await Earshot.api("/api/voices/prompts");
  prompts = answer.prompts;
  $("prompts").innerHTML = prompts.map((p, i) => `<li><p>${Earshot.escape(p)}</p>
    <div class="row"><button type="button" data-clip="${i}">● Record clip ${i + 1}</button>
    <progress max="1" value="0" id="clip-${i}" aria-label="Clip ${i + 1}"></progress>
    <meter id="clip-level-${i}" min="0" max="1" value="0" aria-label="Microphone level, clip ${i + 1}"></meter>
    <span id="clip-state-${i}" class="muted" role="status"></span></div></li>`).join("");
}

$("prompts").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-clip]");
  if (!button) return;
  const i = Number(button.dataset.clip);
  button.disabled = true;
  try {
    $(`clip-state-${i}`).textContent = "recording: read it aloud";
    clips[i] = await Microphone.clip(10, (fraction) => { $(`clip-${i}`).value = fraction; },
                                     (level) => { $(`clip-level-${i}`).value = level; });
    $(`clip-level-${i}`).value = 0;
    $(`clip-state-${i}`).textContent = "recorded";
  } catch (error) {
    Earshot.showError($("enrol-status"), error.message);
  }
  button.disabled = false;
  $("enrol").disabled = clips.filter(Boolean).length < 3;
});

$("enrol").addEventListener("click", async () => {
  const name = $("person").value.trim();
  if (!name) { Earshot.showError($("enrol-status"), "Give the person a name."); $("person").focus(); return; }
  const form = new FormData();
  clips.forEach((clip, i) => { if (clip) form.append("clips", clip, `clip-${i + 1}.wav`); });
  $("enrol").disabled = true;
  $("enrol-status").textContent = "Training…";
  try {
    const result = await Earshot.stream(`/api/voices/${encodeURIComponent(name)}/enroll`, form, (event, data) => {
      if (event === "progress") $("enrol-progress").value = data.total ? data.done / data.total : 0;
    });
    $("enrol-progress").value = 1;
    $("enrol-status").textContent = `Enrolled ${result.name} from ${result.clips} clips (${result.speech_seconds.toFixed(0)} s of speech).`;
    await loadPeople();
    $("who").value = result.name;
  } catch (error) {
    Earshot.showError($("enrol-status"), error.message);
  }
  $("enrol").disabled = false;
});

function showScore(score) {
  const p = score.probability;
  $("probability").style.width = `${Math.round(p * 100)}%`;
  $("threshold").style.left = `${Math.round(score.threshold * 100)}%`;
  $("threshold").hidden = false;
  $("score-bar").setAttribute("aria-label", `${score.name}: probability ${p.toFixed(2)}, ${score.threshold.toFixed(2)} needed`);
  $("verdict").textContent = score.accepted ? `It's ${score.name} (${p.toFixed(2)})` : `Not ${score.name} (${p.toFixed(2)}; needs ${score.threshold.toFixed(2)})`;
  $("verdict").className = `big verdict ${score.accepted ? "yes" : "no"}`;
}

async function check(path) {
  $("check-status").textContent = "Listening for 4 s…";
  const form = new FormData();
  form.append("file", await Microphone.clip(4), "check.wav");
  $("check-status").textContent = "Scoring…";
  try {
    const result = await Earshot.api(path, { method: "POST", body: form });
    $("check-status").textContent = "";
    return result;
  } catch (error) {
    Earshot.showError($("check-status"), error.message);
    return null;
  }
}

// "Is it them?": a live voice session scores the last 4 s of the microphone every second
new LiveButton($("verify"), "● Check live", $("check-status"), () => {
  if (!$("who").value) { $("check-status").textContent = "Enrol someone first."; return null; }
  $("check-status").textContent = "Listening…";
  return new LiveSession("voice", { name: $("who").value });
}, (name, data) => {
  if (name === "voice") { showScore(data); $("check-status").textContent = "Listening…"; }
  if (name === "silence") $("check-status").textContent = "Listening… (say something)";
  if (name === "end") $("check-status").textContent = "";
});

$("identify").addEventListener("click", async () => {
  const result = await check("/api/voices/identify");
  if (!result) return;
  if (result.ranking.length) showScore(result.ranking[0]);
  // nobody accepted the voice: someone else, unless nobody is enrolled at all
  $("verdict").textContent = result.speaker ? `It's ${result.speaker}`
    : result.ranking.length ? "Someone else: not anyone enrolled" : "Nobody is enrolled yet";
  Earshot.bars($("ranking"), result.ranking.map((s) => ({ label: s.name, value: s.probability, text: s.probability.toFixed(2) })));
});

async function loadPeople() {
  const listing = await Earshot.api("/api/voices");
  $("who").innerHTML = listing.profiles.map((p) => `<option>${Earshot.escape(p.name)}</option>`).join("");
  $("people").innerHTML = listing.profiles.map((p) => `<li class="row"><span class="grow">${Earshot.escape(p.name)}
      <span class="muted">(${p.clips} clips, ${p.speech_seconds.toFixed(0)} s of speech)</span></span>
      <a class="button secondary" href="/api/voices/${encodeURIComponent(p.name)}/export" download>Export ONNX</a>
      <button type="button" class="danger" data-remove="${Earshot.escape(p.name)}">Remove</button></li>`).join("")
    || '<li class="muted">Nobody yet.</li>';
}
$("people").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-remove]");
  if (!button || !confirm(`Remove ${button.dataset.remove}?`)) return;
  await Earshot.api(`/api/voices/${encodeURIComponent(button.dataset.remove)}`, { method: "DELETE" });
  loadPeople();
});

loadPrompts();
loadPeople();
