// cuBLAS loaded on first use. Linking libcublas made every start of the program pay for
// libcublasLt's static initialisers (its page faults were half of a `metrics --backend emu`
// run's start-up on the 2-core machine), though only the SGEMM and GemmEx peers and the matmul
// reference use it. These definitions stand in for the few entry points the CUDA build
// calls (cublas_v2.h maps the names to their _v2 symbols) and forward to the library,
// opened with dlopen the first time one is called. Built with hidden visibility: the
// program exports its symbols (-rdynamic, for student kernels), and libcublas must not
// bind its own calls to these.
#include <cublas_v2.h>
#include <dlfcn.h>

#include <string>

namespace {

void* cublas_library() {
  static void* h = [] {
    const std::string so = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    void* p = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
#if defined(WS_CUBLAS_DIR)
    if (!p) p = ::dlopen((std::string(WS_CUBLAS_DIR) + "/" + so).c_str(), RTLD_NOW | RTLD_LOCAL);
#endif
    return p;
  }();
  return h;
}

template <class F>
F entry(const char* name) {
  void* h = cublas_library();
  return h ? reinterpret_cast<F>(::dlsym(h, name)) : nullptr;
}

}  // namespace

extern "C" {

cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t* handle) {
  static const auto f = entry<cublasStatus_t (*)(cublasHandle_t*)>("cublasCreate_v2");
  return f ? f(handle) : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle) {
  static const auto f = entry<cublasStatus_t (*)(cublasHandle_t)>("cublasDestroy_v2");
  return f ? f(handle) : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  static const auto f = entry<cublasStatus_t (*)(cublasHandle_t, cudaStream_t)>("cublasSetStream_v2");
  return f ? f(handle, stream) : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  static const auto f = entry<cublasStatus_t (*)(cublasHandle_t, cublasMath_t)>("cublasSetMathMode");
  return f ? f(handle, mode) : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                           cublasOperation_t transb, int m, int n, int k,
                                           const float* alpha, const float* A, int lda,
                                           const float* B, int ldb, const float* beta, float* C,
                                           int ldc) {
  using Fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                int, const float*, const float*, int, const float*, int,
                                const float*, float*, int);
  static const auto f = entry<Fn>("cublasSgemm_v2");
  return f ? f(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)
           : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const void* alpha, const void* A, cudaDataType Atype,
                                         int lda, const void* B, cudaDataType Btype, int ldb,
                                         const void* beta, void* C, cudaDataType Ctype, int ldc,
                                         cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  using Fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                int, const void*, const void*, cudaDataType, int, const void*,
                                cudaDataType, int, const void*, void*, cudaDataType, int,
                                cublasComputeType_t, cublasGemmAlgo_t);
  static const auto f = entry<Fn>("cublasGemmEx");
  return f ? f(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype,
               ldc, computeType, algo)
           : CUBLAS_STATUS_NOT_INITIALIZED;
}

const char* CUBLASWINAPI cublasGetStatusString(cublasStatus_t status) {
  static const auto f = entry<const char* (*)(cublasStatus_t)>("cublasGetStatusString");
  if (f) return f(status);
  return status == CUBLAS_STATUS_NOT_INITIALIZED
             ? "cuBLAS could not be loaded (libcublas not found)"
             : "cuBLAS error";
}

}  // extern "C"
