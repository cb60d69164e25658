// Built only with NCCL (CMakeLists.txt: SECPE_NCCL).
#include "comms/nccl_communicator.hpp"

#include <nccl.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "compute/cuda/device_memory.hpp"
#include "compute/cuda/cuda_backend.hpp"
#include "compute/impl/gpu_plan.hpp"
#include "core/error.hpp"

#define SECPE_NCCL_CHECK(call) SECPE_CHECK_STATUS(call, ncclSuccess, ncclGetErrorString)

namespace secpe {
namespace {

class NcclCommunicator final : public Communicator {
  // Runs a collective on the wrapped communicator and counts what it sent as sent by this one.
  template <class F>
  auto delegate(F&& f) const {
    const std::uint64_t before = base_.bytes_sent();
    struct Count {
      const NcclCommunicator& self;
      std::uint64_t before;
      ~Count() { self.count_sent(self.base_.bytes_sent() - before); }
    } count{*this, before};
    return f();
  }

 public:
  NcclCommunicator(const Communicator& base, int device) : Communicator(base.rank(), base.size()), base_(base), device_(device) {
    SECPE_CUDA_CHECK(cudaSetDevice(device_));
    ncclUniqueId id{};
    if (base_.is_root()) SECPE_NCCL_CHECK(ncclGetUniqueId(&id));
    base_.broadcast(std::span<unsigned char>(reinterpret_cast<unsigned char*>(id.internal), sizeof id.internal));
    SECPE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    const ncclResult_t init = ncclCommInitRank(&comm_, size(), id, rank());
    if (init != ncclSuccess) {
      cudaStreamDestroy(stream_);
      SECPE_NCCL_CHECK(init);
    }
  }
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;
  ~NcclCommunicator() override {
    cudaSetDevice(device_);
    ncclCommDestroy(comm_);
    cudaStreamDestroy(stream_);
  }

  using Communicator::allreduce_sum;
  using Communicator::broadcast;
  void allreduce_sum(std::span<std::int64_t> values) const override {
    if (values.size() < kNcclMinValues) return delegate([&] { base_.allreduce_sum(values); });
    count_allreduce(values.size_bytes());
    SECPE_CUDA_CHECK(cudaSetDevice(device_));
    buffer_.reserve(values.size());
    SECPE_CUDA_CHECK(cudaMemcpyAsync(buffer_.get(), values.data(), values.size_bytes(), cudaMemcpyHostToDevice, stream_));
    SECPE_NCCL_CHECK(ncclAllReduce(buffer_.get(), buffer_.get(), values.size(), ncclInt64, ncclSum, comm_, stream_));
    SECPE_CUDA_CHECK(cudaMemcpyAsync(values.data(), buffer_.get(), values.size_bytes(), cudaMemcpyDeviceToHost, stream_));
    SECPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  double allreduce_max(double value) const override {
    return delegate([&] { return base_.allreduce_max(value); });
  }
  void allreduce_min_loc(std::span<MinLoc> values) const override {
    delegate([&] { base_.allreduce_min_loc(values); });
  }
  std::int64_t exclusive_scan_sum(std::int64_t value) const override {
    return delegate([&] { return base_.exclusive_scan_sum(value); });
  }
  void broadcast(std::span<float> v, int root) const override { delegate([&] { base_.broadcast(v, root); }); }
  void broadcast(std::span<double> v, int root) const override { delegate([&] { base_.broadcast(v, root); }); }
  void broadcast(std::span<std::int64_t> v, int root) const override { delegate([&] { base_.broadcast(v, root); }); }
  void broadcast(std::span<unsigned char> v, int root) const override { delegate([&] { base_.broadcast(v, root); }); }
  std::vector<float> allgather(std::span<const float> v) const override {
    return delegate([&] { return base_.allgather(v); });
  }
  std::vector<double> allgather(std::span<const double> v) const override {
    return delegate([&] { return base_.allgather(v); });
  }
  std::vector<std::int64_t> allgather(std::span<const std::int64_t> v) const override {
    return delegate([&] { return base_.allgather(v); });
  }
  std::vector<unsigned char> allgather(std::span<const unsigned char> v) const override {
    return delegate([&] { return base_.allgather(v); });
  }
  std::vector<unsigned char> alltoallv(std::span<const unsigned char> send, std::span<const std::size_t> send_counts,
                                       std::vector<std::size_t>& recv_counts) const override {
    return delegate([&] { return base_.alltoallv(send, send_counts, recv_counts); });
  }
  void barrier() const override { base_.barrier(); }

 private:
  const Communicator& base_;
  int device_;
  cudaStream_t stream_ = nullptr;
  ncclComm_t comm_ = nullptr;
  mutable cuda::DeviceBuffer<std::int64_t> buffer_;
};

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(const Communicator& base, int device) {
  const int devices = cuda_device_count();
  if (devices == 0) throw InputError("NCCL needs a CUDA device, and this process has none");
  if (device < 0) device = gpu::device_for_local_rank(gpu::local_rank_from_env(), devices);
  // NCCL takes one GPU per rank: ranks sharing one (more ranks than GPUs on a node) reduce over
  // the wrapped communicator instead.
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::vector<std::string> gpus = base.allgather_strings({std::string(host) + "/" + std::to_string(device)});
  if (std::set<std::string>(gpus.begin(), gpus.end()).size() != gpus.size()) return nullptr;
  return std::make_unique<NcclCommunicator>(base, device);
}

}  // namespace secpe
