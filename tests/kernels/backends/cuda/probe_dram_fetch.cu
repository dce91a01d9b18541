// DRAM fetch probe: the DRAM bytes of strided and offset copies (run under Nsight Compute
// with dram__bytes_read.sum), and cudaLimitMaxL2FetchGranularity, which sets the 64-byte
// fetch of sim::AccessModel::fetch_bytes. An argument sets the limit (32, 64, 128).
// Standalone: nvcc -arch=sm_90 -O3 probe_dram_fetch.cu && ./a.out [limit]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void copy_stride(const float* in, float* out, int stride) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * stride];
}
__global__ void copy_offset(const float* in, float* out, int offset) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i + offset];
}
__global__ void naive_t(const float* in, float* out, int n) {
  int x = blockIdx.x * 32 + threadIdx.x, y0 = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[(long long)x * n + y0 + j] = in[(long long)(y0 + j) * n + x];
}
int main(int argc, char** argv) {
  size_t lim = 0;
  cudaDeviceGetLimit(&lim, cudaLimitMaxL2FetchGranularity);
  printf("cudaLimitMaxL2FetchGranularity %zu\n", lim);
  if (argc > 1) { cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, atoi(argv[1]));
    cudaDeviceGetLimit(&lim, cudaLimitMaxL2FetchGranularity); printf("set to %zu\n", lim); }
  float *a, *b;
  cudaMalloc(&a, 2200ll << 20); cudaMalloc(&b, 2200ll << 20);
  cudaMemset(a, 0, 2200ll << 20); cudaMemset(b, 0, 2200ll << 20);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto time = [&](const char* name, auto f) {
    f(); cudaDeviceSynchronize();
    float best = 1e9;
    for (int r = 0; r < 10; ++r) { cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms < best) best = ms; }
    printf("%-22s %.4f ms\n", name, best);
  };
  int n = 1 << 24;
  for (int s : {1, 2, 4, 8, 16, 32}) { char nm[64]; snprintf(nm, 64, "stride%d", s);
    time(nm, [&] { copy_stride<<<n / 256, 256>>>(a, b, s); }); }
  int m = 1 << 26;
  for (int o : {0, 1, 32}) { char nm[64]; snprintf(nm, 64, "offset%d", o);
    time(nm, [&] { copy_offset<<<m / 256, 256>>>(a, b, o); }); }
  int t = 8192;
  time("naive_t", [&] { naive_t<<<dim3(t / 32, t / 32), dim3(32, 8)>>>(a, b, t); });
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
