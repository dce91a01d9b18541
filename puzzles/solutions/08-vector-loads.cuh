// Solution of puzzles/08-vector-loads.md: one int4 load per group. A warp's request is
// 512 contiguous bytes, 16 sectors all used, and there are a quarter as many requests.
WS_DEVICE int warp_sum(Thread& t, int v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v += t.shfl_down_sync(WS_FULL_MASK, v, offset);
  }
  return v;
}

struct Reduce {
  Global<const int> in;
  Global<const int4> in4;
  Global<int> out;
  unsigned n;
  WS_DEVICE void operator()(Thread& t) const {
    auto warp_sums = t.shared<int>(32, "warp_sums");
    unsigned v = t.blockIdx.x * t.blockDim.x + t.threadIdx.x;
    unsigned grid_size = t.blockDim.x * t.gridDim.x;
    int sum = 0;
    while (v < n / 4) {
      int4 q = in4(v);
      sum += q.x + q.y + q.z + q.w;
      v += grid_size;
    }
    sum = warp_sum(t, sum);
    if (t.lane() == 0) {
      warp_sums(t.warp()) = sum;
    }
    t.syncthreads();
    if (t.warp() == 0) {
      sum = 0;
      if (t.lane() < t.blockDim.x / 32) {
        sum = warp_sums(t.lane());
      }
      sum = warp_sum(t, sum);
      if (t.lane() == 0) {
        out(t.blockIdx.x) = sum;
      }
    }
  }
};
