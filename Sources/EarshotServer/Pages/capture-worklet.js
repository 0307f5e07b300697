// Runs in the audio thread: hands each block of microphone samples (already at the context's 16 kHz) to the page.
class CaptureProcessor extends AudioWorkletProcessor {
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel) this.port.postMessage(channel.slice(0));
    return true;
  }
}
registerProcessor("earshot-capture", CaptureProcessor);
