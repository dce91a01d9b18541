// Solution of puzzles/09-tiled-matmul.md: 16 x 16 tiles of A and B staged in shared
// memory. Global loads fall by a factor of 16; the inner loop reads As by row (a
// broadcast per half-warp row) and Bs by column index tx (consecutive banks).
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
    float sum = 0.f;
    for (int p = 0; p < n / 16; ++p) {
      as(ty, tx) = a(row * n + p * 16 + tx);
      bs(ty, tx) = b((p * 16 + ty) * n + col);
      t.syncthreads();
      for (int k = 0; k < 16; ++k) {
        sum += as(ty, k) * bs(k, tx);
      }
      t.syncthreads();
    }
    c(row * n + col) = sum;
  }
};
