// Solution of puzzles/10-boundary-checks.md: clamped, unconditional loads scaled by 0 or
// 1. Every lane of every warp issues every load; only the store keeps its branch.
struct Matmul {
  Global<const float> a, b;
  Global<float> c;
  int n;
  WS_DEVICE void operator()(Thread& t) const {
    auto as = t.shared2d<float>(16, 16, "As");
    auto bs = t.shared2d<float>(16, 16, "Bs");
    int tx = t.threadIdx.x;
    int ty = t.threadIdx.y;
    int row = t.blockIdx.y * 16 + ty;
    int col = t.blockIdx.x * 16 + tx;
    int r = row < n ? row : n - 1;
    int cc = col < n ? col : n - 1;
    float sum = 0.f;
    for (int p = 0; p < (n + 15) / 16; ++p) {
      int ka = p * 16 + tx;
      int kb = p * 16 + ty;
      float ina = (row < n && ka < n) ? 1.f : 0.f;
      float inb = (kb < n && col < n) ? 1.f : 0.f;
      as(ty, tx) = a(r * n + (ka < n ? ka : n - 1)) * ina;
      bs(ty, tx) = b((kb < n ? kb : n - 1) * n + cc) * inb;
      t.syncthreads();
      for (int k = 0; k < 16; ++k) {
        sum += as(ty, k) * bs(k, tx);
      }
      t.syncthreads();
    }
    if (t.branch(row < n && col < n)) {
      c(row * n + col) = sum;
    }
  }
};
