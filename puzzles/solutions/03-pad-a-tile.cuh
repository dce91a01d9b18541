// Solution of puzzles/03-pad-a-tile.md: one float of padding per row. Word (r, c) is
// then in bank (r * 33 + c) % 32 = (r + c) % 32, so a column runs through all 32 banks.
struct Transpose {
  Global<const float> in;
  Global<float> out;
  int n;
  WS_DEVICE void operator()(Thread& t) const {
    auto s = t.shared2d<float>(32, 33, "tile");
    int x = t.blockIdx.x * 32 + t.threadIdx.x;
    int y = t.blockIdx.y * 32 + t.threadIdx.y;
    for (int j = 0; j < 32; j += 8) {
      s(t.threadIdx.y + j, t.threadIdx.x) = in((y + j) * n + x);
    }
    t.syncthreads();
    x = t.blockIdx.y * 32 + t.threadIdx.x;
    y = t.blockIdx.x * 32 + t.threadIdx.y;
    for (int j = 0; j < 32; j += 8) {
      out((y + j) * n + x) = s(t.threadIdx.x, t.threadIdx.y + j);
    }
  }
};
