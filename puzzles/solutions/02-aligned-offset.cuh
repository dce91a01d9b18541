// Solution of puzzles/02-aligned-offset.md: lane k takes element base + k. The load
// window starts `offset` = 8 floats (one sector) later, still on a sector boundary.
struct OffsetCopy {
  Global<const float> in;
  Global<float> out;
  int offset;
  WS_DEVICE void operator()(Thread& t) const {
    long long i = (long long)t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    out(i) = in(i + offset);
  }
};
