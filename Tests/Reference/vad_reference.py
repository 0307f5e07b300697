#!/usr/bin/env python3
"""Float reference of silero VAD's frame probabilities: onnxruntime with every graph optimisation off,
fed as Earshot feeds it (512-sample frames at 16 kHz, each with the previous frame's last 64 samples in
front, the recurrent state carried over).
usage: vad_reference.py MODEL AUDIO.f32 [AUDIO.f32 ...] -> JSON on stdout: per file, its probabilities.
AUDIO.f32: raw little-endian float32 samples at 16 kHz."""
import json
import sys

import numpy as np

from float_session import reference_session

FRAME, CONTEXT = 512, 64


def main():
    model, audio = sys.argv[1], sys.argv[2:]
    sess = reference_session(model)
    rate = np.array(16000, dtype=np.int64)
    files = []
    for path in audio:
        x = np.fromfile(path, dtype="<f4")
        state = np.zeros((2, 1, 128), dtype=np.float32)
        context = np.zeros(CONTEXT, dtype=np.float32)
        probabilities = []
        for start in range(0, len(x) - FRAME + 1, FRAME):
            frame = x[start:start + FRAME]
            out, state = sess.run(["output", "stateN"], {"input": np.concatenate([context, frame])[None], "state": state, "sr": rate})
            probabilities.append(float(out.ravel()[0]))
            context = frame[-CONTEXT:]
        files.append(probabilities)
    json.dump(files, sys.stdout)


if __name__ == "__main__":
    main()
