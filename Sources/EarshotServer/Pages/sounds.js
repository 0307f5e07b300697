// Sounds: live labels from the built-in or a trained classifier; a trainer for your own labels.
"use strict";
const $ = (id) => document.getElementById(id);
const examples = new Map();   // label → [Blob]

function bars(top) {
  Earshot.bars($("bars"), top.map((s) => ({ label: s.label, value: s.confidence, text: `${Math.round(s.confidence * 100)}%` })));
}

new LiveButton($("listen"), "● Listen", $("live-status"), () => new LiveSession("sound", { model: $("model").value }), (name, data) => {
  if (name === "sound") { $("now").textContent = data.top.length ? data.top[0].label : "—"; bars(data.top); }
});

function renderLabels() {
  $("labels").innerHTML = [...examples.entries()].map(([label, clips]) => `<li class="row">
      <strong class="grow">${Earshot.escape(label)}</strong> <span>${clips.length} example${clips.length === 1 ? "" : "s"}</span>
      <button type="button" data-record="${Earshot.escape(label)}">● Record 2 s</button>
      <label class="button secondary" for="add-${Earshot.escape(label)}">Add files…</label>
      <input id="add-${Earshot.escape(label)}" type="file" accept="audio/*" multiple class="sr-only" data-files="${Earshot.escape(label)}">
    </li>`).join("");
  // a classifier tells two labels apart at least, each with an example
  $("train").disabled = [...examples.values()].filter((clips) => clips.length > 0).length < 2;
}

$("add-label").addEventListener("submit", (event) => {
  event.preventDefault();
  const label = $("label-name").value.trim();
  if (label && !examples.has(label)) examples.set(label, []);
  $("label-name").value = "";
  renderLabels();
});

$("labels").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-record]");
  if (!button) return;
  button.disabled = true;
  button.textContent = "Recording…";
  try {
    examples.get(button.dataset.record).push(await Microphone.clip(2));
  } catch (error) {
    Earshot.showError($("train-status"), error.message);
  }
  renderLabels();
});
$("labels").addEventListener("change", (event) => {
  const input = event.target.closest("input[data-files]");
  if (!input) return;
  examples.get(input.dataset.files).push(...input.files);
  renderLabels();
});

function chart(epochs) {
  const canvas = $("chart"), g = canvas.getContext("2d");
  g.clearRect(0, 0, canvas.width, canvas.height);
  if (epochs.length < 2) return;
  const maxLoss = Math.max(...epochs.map((e) => Math.max(e.train_loss, e.validation_loss || 0)));
  const line = (values, color, scale) => {
    g.strokeStyle = color; g.lineWidth = 2; g.beginPath();
    values.forEach((v, i) => {
      const x = 10 + (i / (values.length - 1)) * (canvas.width - 20), y = canvas.height - 10 - (v / scale) * (canvas.height - 20);
      if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
    });
    g.stroke();
  };
  line(epochs.map((e) => e.train_loss), "#b42318", maxLoss);
  line(epochs.map((e) => e.train_accuracy), "#1a7f45", 1);
  if (epochs[0].validation_accuracy !== undefined) line(epochs.map((e) => e.validation_accuracy || 0), "#2456d6", 1);
  g.fillStyle = "#1d2430"; g.font = "12px system-ui";
  g.fillText("loss (red) · train accuracy (green) · validation accuracy (blue)", 12, 16);
}

$("train").addEventListener("click", async () => {
  const form = new FormData();
  form.append("name", $("model-name").value.trim());
  for (const [label, clips] of examples) clips.forEach((clip, i) => form.append(`clips[${label}]`, clip, clip.name || `${label}-${i + 1}.wav`));
  const epochs = [];
  $("train").disabled = true;
  $("chart").hidden = false;
  try {
    const result = await Earshot.stream("/api/sounds/train", form, (name, data) => {
      if (name === "progress") $("train-status").textContent = `${data.step}: ${data.done} of ${data.total}`;
      if (name === "epoch") { epochs.push(data); chart(epochs); $("train-status").textContent = `epoch ${data.epoch}: accuracy ${Math.round(data.train_accuracy * 100)}%`; }
    });
    const accuracy = result && result.validation ? ` (validation accuracy ${Math.round(result.validation.accuracy * 100)}%)` : "";
    $("train-status").textContent = `Trained “${$("model-name").value}”${accuracy}. Choose it above and press Listen to try it.`;
    loadModels();
  } catch (error) {
    Earshot.showError($("train-status"), error.message);
  }
  $("train").disabled = false;
});

async function loadModels() {
  const models = await Earshot.api("/api/sounds/models");
  $("model").innerHTML = '<option value="builtin">Built-in (521 everyday sounds)</option>' +
    models.map((m) => `<option value="${Earshot.escape(m.name)}">${Earshot.escape(m.name)} (${m.labels.map(Earshot.escape).join(", ")})</option>`).join("");
  $("models").innerHTML = models.map((m) => `<li class="row"><span class="grow">${Earshot.escape(m.name)}: ${m.labels.map(Earshot.escape).join(", ")}</span>
    <a class="button secondary" href="/api/sounds/models/${encodeURIComponent(m.name)}" download>Download</a>
    <a class="button secondary" href="/api/sounds/models/${encodeURIComponent(m.name)}/onnx" download>ONNX</a>
    <button type="button" class="danger" data-delete="${Earshot.escape(m.name)}">Delete</button></li>`).join("");
}
$("models").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-delete]");
  if (!button || !confirm(`Delete the model ${button.dataset.delete}?`)) return;
  await Earshot.api(`/api/sounds/models/${encodeURIComponent(button.dataset.delete)}`, { method: "DELETE" });
  loadModels();
});
loadModels();
