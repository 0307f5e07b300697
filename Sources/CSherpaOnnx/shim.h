#include <sherpa-onnx/c-api/c-api.h>
