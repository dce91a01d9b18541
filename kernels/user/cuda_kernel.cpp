// A CUDA file rewritten for the emulator and described as a dialect kernel spec.
#include "kernels/user/cuda_kernel.h"
#include "kernels/user/cache_dir.h"
#include "io/atomic_file.h"
#include "io/read_file.h"

#include <filesystem>
#include <sstream>

namespace ws::user {
namespace fs = std::filesystem;

bool is_cuda_file(const std::string& path) {
  if (fs::path(path).extension() == ".cu") return true;
  const io::ReadResult r = io::read_file(path, io::kDefaultReadCap, "kernel file");
  return r.ok && cuda::is_cuda_source(r.text) && r.text.find("operator()(Thread") == std::string::npos;
}

CudaPrepared prepare_cuda(const std::string& path, const std::string& dir) {
  CudaPrepared p;
  const io::ReadResult rf = io::read_file(path, io::kDefaultReadCap, "kernel file");
  if (!rf.ok) {
    p.errors.push_back({path, 1, rf.reason.empty() ? rf.error : rf.reason});
    return p;
  }
  const std::string& src = rf.text;
  const std::string abs = fs::absolute(path).lexically_normal().string();
  const cuda::Translation tr = cuda::translate(src, abs);
  for (const auto& e : tr.errors) p.errors.push_back({path, e.line, e.message});
  if (!tr.ok) return p;
  const fs::path d = fs::path(dir) / ("cuda-" + cache_key(tr.text + abs));
  std::error_code ec;
  fs::create_directories(d, ec);
  const fs::path out = d / fs::path(path).filename();
  if (const io::WriteResult w = io::write_file(out.string(), tr.text, {.overwrite = true}); !w.ok) {
    p.errors.push_back({path, 1, "cannot write the rewritten kernel: " + w.error});
    return p;
  }
  p.spec.source_path = out.string();
  p.spec.struct_name = cuda::Translation::kStruct;
  for (const cuda::Param& q : tr.params) {
    Field f;
    f.name = q.name;
    f.type = q.type;
    f.is_const = q.is_const;
    f.array = q.pointer;
    p.spec.fields.push_back(f);
  }
  p.kernel = tr.kernel;
  p.kernel_line = tr.kernel_line;
  p.params = tr.params;
  p.ok = true;
  return p;
}

}  // namespace ws::user
