#include "fs/suite.h"

#include <fcntl.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <numeric>
#include <optional>
#include <random>
#include <thread>

#include "core/error.h"
#include "fs/io.h"

namespace storebench::fs_suite {

namespace {

constexpr std::size_t kStreamPiece = 1u << 20;
constexpr std::size_t kBaseBytes = 2u << 20;

std::uint64_t SplitMix(std::uint64_t* state) {
  std::uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t Mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t s = a * 0xD6E8FEB86659FD93ull ^ b;
  return SplitMix(&s);
}

std::uint64_t NowNs() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// One operation type's figures inside a phase (per thread, merged after).
struct OpData {
  std::string name;
  Histogram hist;
  std::uint64_t errors = 0;
};

// What a phase (or one of its threads) collects.
struct PhaseData {
  std::vector<OpData> ops;
  std::uint64_t bytes = 0;
  std::uint64_t integrity_failures = 0;
  std::uint64_t verified_bytes = 0;
  std::vector<std::string> notes;
  std::vector<double> file_mb_per_s;

  explicit PhaseData(std::initializer_list<const char*> names) {
    for (const char* n : names) ops.push_back({n, Histogram(), 0});
  }
  // The same operation names, nothing counted (a worker thread's share).
  PhaseData Empty() const {
    PhaseData d({});
    for (const auto& op : ops) d.ops.push_back({op.name, Histogram(), 0});
    return d;
  }
  void Merge(const PhaseData& o) {
    for (std::size_t i = 0; i < ops.size(); ++i) {
      ops[i].hist.Merge(o.ops[i].hist);
      ops[i].errors += o.ops[i].errors;
    }
    bytes += o.bytes;
    integrity_failures += o.integrity_failures;
    verified_bytes += o.verified_bytes;
    for (const auto& n : o.notes) {
      if (notes.size() < 5) notes.push_back(n);
    }
  }
  // Counts a mismatch; the first few are described.
  void Mismatch(const std::string& what) {
    ++integrity_failures;
    if (notes.size() < 5) notes.push_back("verification failed: " + what);
  }
};

std::string FileName(std::uint64_t i, std::uint64_t seed) {
  // bonnie++'s shape: a number, then random letters (here fixed by the seed).
  static const char kAlnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%010" PRIu64, i);
  std::string name = buf;
  std::uint64_t s = Mix(seed, i);
  const int extra = static_cast<int>(SplitMix(&s) % 8);
  for (int k = 0; k < extra; ++k) name.push_back(kAlnum[SplitMix(&s) % 62]);
  return name;
}

class Suite {
 public:
  Suite(FsBackend* b, const FsOptions& o) : b_(b), o_(o), pattern_(o.seed) {}

  FsResult Run();

 private:
  bool Wants(const std::string& g) const {
    return std::find(o_.groups.begin(), o_.groups.end(), g) != o_.groups.end();
  }
  void Progress(const std::string& s) const {
    if (o_.progress) o_.progress(s);
  }
  // Runs `body` as phase `name`, timing it; a Stop is recorded and rethrown.
  template <typename F>
  void Phase(const std::string& name, int threads, PhaseData data, F&& body);
  // Runs fn(thread, data) on `threads` threads with their own PhaseData, merged into *data.
  template <typename F>
  void Workers(int threads, PhaseData* data, F&& fn);

  std::string Data() const { return o_.workdir + "/data"; }
  std::string FilesDir() const { return o_.workdir + "/files"; }
  void Verify(PhaseData* d, std::uint64_t index, const char* got, std::size_t n, const std::string& where);

  void WriteChr();
  void WriteBlock();
  void Rewrite();
  void ReadChr();
  void ReadBlock();
  void Seeks();
  void Create(const std::string& phase, const std::vector<std::uint64_t>& order);
  void StatFiles(const std::string& phase, const std::vector<std::uint64_t>* order);
  void DeleteFiles(const std::string& phase, const std::vector<std::uint64_t>* order);
  // The files' names: in directory order (order == null) or the given one.
  std::vector<std::string> FileNames(const std::string& phase, const std::vector<std::uint64_t>* order);
  void StreamWrite();
  void StreamRead();
  void Cleanup();

  FsBackend* b_;
  FsOptions o_;
  Pattern pattern_;
  std::uint64_t blocks_ = 0;
  std::vector<std::uint8_t> gen_;  // each chunk's generation
  FsResult r_;
};

template <typename F>
void Suite::Phase(const std::string& name, int threads, PhaseData data, F&& body) {
  Progress(name + "...");
  const auto wall = std::chrono::system_clock::now();
  const double cpu0 = CpuSeconds();
  const std::uint64_t t0 = NowNs();
  std::string error;
  bool enospc = false;
  try {
    body(&data);
  } catch (const Stop& s) {
    error = name + ": " + s.what;
    enospc = s.err == ENOSPC || s.err == EDQUOT;
  }
  const double seconds = static_cast<double>(NowNs() - t0) / 1e9;
  const double cpu = CpuSeconds() - cpu0;

  PhaseResult p;
  p.phase = name;
  p.binding = "fs";
  p.threads = threads;
  p.start_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(wall.time_since_epoch()).count();
  p.runtime_ms = static_cast<std::int64_t>(seconds * 1000 + 0.5);
  p.operations = data.ops.empty() ? 0 : data.ops[0].hist.count() + data.ops[0].errors;
  p.throughput_ops_per_s = seconds > 0 ? static_cast<double>(p.operations) / seconds : 0;
  p.stop_reason = error.empty() ? "complete" : enospc ? "ENOSPC" : "error";
  for (auto& op : data.ops) {
    OpResult res;
    res.name = op.name;
    res.service = op.hist;
    res.intended = op.hist;
    res.return_codes[Status::kOk] = op.hist.count();
    res.return_codes[Status::kError] = op.errors;
    p.ops.push_back(std::move(res));
  }
  PhaseExtra x;
  x.bytes = data.bytes;
  x.seconds = seconds;
  x.cpu_seconds = cpu;
  x.cpu_percent = seconds > 0 ? cpu / seconds * 100 : 0;
  x.kb_per_s = seconds > 0 ? static_cast<double>(data.bytes) / 1024 / seconds : 0;
  x.file_mb_per_s = data.file_mb_per_s;
  auto num = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return std::string(buf);
  };
  p.store_stats = {{"fs.bytes", std::to_string(x.bytes)},        {"fs.seconds", num(x.seconds)},
                   {"fs.kb_per_s", num(x.kb_per_s)},              {"fs.cpu_seconds", num(cpu)},
                   {"fs.cpu_percent", num(x.cpu_percent)},        {"fs.verified_bytes", std::to_string(data.verified_bytes)}};
  for (std::size_t i = 0; i < x.file_mb_per_s.size(); ++i) {
    p.store_stats.emplace_back("fs.file" + std::to_string(i) + ".mb_per_s", num(x.file_mb_per_s[i]));
  }
  p.integrity_failures = data.integrity_failures;
  p.notes = data.notes;
  if (!error.empty()) p.notes.push_back(error);
  r_.integrity_failures += data.integrity_failures;
  r_.verified_bytes += data.verified_bytes;
  r_.phases.push_back(std::move(p));
  r_.extras.push_back(x);
  Progress(error.empty() ? name + "...done" : name + "...FAILED: " + error);
  if (!error.empty()) {
    r_.error = error;
    r_.out_of_space = enospc;
    throw Stop{enospc ? ENOSPC : EIO, error};
  }
}

template <typename F>
void Suite::Workers(int threads, PhaseData* data, F&& fn) {
  std::vector<PhaseData> local(static_cast<std::size_t>(threads), data->Empty());
  std::vector<std::thread> ts;
  std::mutex mu;
  std::optional<Stop> stop;
  std::atomic<bool> stopping{false};
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      try {
        fn(t, &local[static_cast<std::size_t>(t)], stopping);
      } catch (const Stop& s) {
        std::lock_guard lock(mu);
        if (!stop) stop = s;
        stopping = true;
      }
    });
  }
  for (auto& th : ts) th.join();
  for (const auto& l : local) data->Merge(l);
  if (stop) throw *stop;
}

void Suite::Verify(PhaseData* d, std::uint64_t index, const char* got, std::size_t n, const std::string& where) {
  thread_local std::vector<char> want;
  want.resize(n);
  pattern_.Fill(index, gen_.empty() ? 0 : gen_[index], want.data(), n);
  d->verified_bytes += n;
  if (std::memcmp(want.data(), got, n) != 0) {
    std::size_t i = 0;
    while (i < n && want[i] == got[i]) ++i;
    d->Mismatch(where + " chunk " + std::to_string(index) + " byte " + std::to_string(i));
  }
}

void Suite::WriteChr() {
  Phase("seq-write-chr", 1, PhaseData{"PUTC4K"}, [&](PhaseData* d) {
    Handle h(b_, Data(), O_WRONLY | O_CREAT | O_TRUNC, "seq-write-chr");
    CharWriter w(b_, h.get(), "seq-write-chr: write " + Data(), o_.chr_syscall ? 1 : kCharBufferBytes);
    std::vector<char> chunk(o_.chunk);
    std::uint64_t group_start = NowNs();
    std::uint64_t in_group = 0;
    for (std::uint64_t b = 0; b < blocks_; ++b) {
      pattern_.Fill(b, gen_[b], chunk.data(), chunk.size());
      for (char c : chunk) {
        w.Put(c);
        if (++in_group == kCharBufferBytes) {
          const std::uint64_t now = NowNs();
          d->ops[0].hist.Record(now - group_start);
          group_start = now;
          in_group = 0;
        }
      }
      d->bytes += o_.chunk;
    }
    w.Flush();
    h.Finish(o_.fsync, "seq-write-chr");
    if (in_group > 0) d->ops[0].hist.Record(NowNs() - group_start);
  });
}

void Suite::WriteBlock() {
  Phase("seq-write-block", 1, PhaseData{"WRITE"}, [&](PhaseData* d) {
    Handle h(b_, Data(), O_WRONLY | O_CREAT | O_TRUNC, "seq-write-block");
    std::vector<char> chunk(o_.chunk);
    const std::string what = "seq-write-block: write " + Data();
    for (std::uint64_t b = 0; b < blocks_; ++b) {
      pattern_.Fill(b, gen_[b], chunk.data(), chunk.size());
      const std::uint64_t t0 = NowNs();
      WriteAll(b_, h.get(), chunk.data(), chunk.size(), what);
      d->ops[0].hist.Record(NowNs() - t0);
      d->bytes += o_.chunk;
    }
    h.Finish(o_.fsync, "seq-write-block");
  });
}

void Suite::Rewrite() {
  Phase("rewrite", 1, PhaseData{"REWRITE"}, [&](PhaseData* d) {
    Handle h(b_, Data(), O_RDWR, "rewrite");
    std::vector<char> chunk(o_.chunk);
    for (std::uint64_t b = 0; b < blocks_; ++b) {
      const std::uint64_t t0 = NowNs();
      ssize_t r = ReadAll(b_, h.get(), chunk.data(), chunk.size());
      if (r < 0) Fail(static_cast<int>(r), "rewrite: read " + Data());
      if (static_cast<std::size_t>(r) != chunk.size()) Fail(-EIO, "rewrite: short read of " + Data());
      Verify(d, b, chunk.data(), chunk.size(), "rewrite");
      ++gen_[b];  // the change: the chunk's next generation
      pattern_.Fill(b, gen_[b], chunk.data(), chunk.size());
      PWriteAll(b_, h.get(), chunk.data(), chunk.size(), static_cast<off_t>(b * o_.chunk), "rewrite: write " + Data());
      d->ops[0].hist.Record(NowNs() - t0);
      d->bytes += o_.chunk;
    }
    h.Finish(o_.fsync, "rewrite");
  });
}

void Suite::ReadChr() {
  Phase("seq-read-chr", 1, PhaseData{"GETC4K"}, [&](PhaseData* d) {
    Handle h(b_, Data(), O_RDONLY, "seq-read-chr");
    CharReader rd(b_, h.get(), "seq-read-chr: read " + Data(), o_.chr_syscall ? 1 : kCharBufferBytes);
    std::vector<char> want(o_.chunk);
    std::uint64_t group_start = NowNs();
    std::uint64_t in_group = 0;
    for (std::uint64_t b = 0; b < blocks_; ++b) {
      pattern_.Fill(b, gen_[b], want.data(), want.size());
      bool bad = false;
      std::size_t first_bad = 0;
      for (std::size_t i = 0; i < want.size(); ++i) {
        const int c = rd.Get();
        if (c < 0) Fail(-EIO, "seq-read-chr: " + Data() + " ends early");
        if (static_cast<char>(c) != want[i] && !bad) {
          bad = true;
          first_bad = i;
        }
        if (++in_group == kCharBufferBytes) {
          const std::uint64_t now = NowNs();
          d->ops[0].hist.Record(now - group_start);
          group_start = now;
          in_group = 0;
        }
      }
      d->verified_bytes += want.size();
      if (bad) d->Mismatch("seq-read-chr chunk " + std::to_string(b) + " byte " + std::to_string(first_bad));
      d->bytes += o_.chunk;
    }
    if (in_group > 0) d->ops[0].hist.Record(NowNs() - group_start);
  });
}

void Suite::ReadBlock() {
  Phase("seq-read-block", 1, PhaseData{"READ"}, [&](PhaseData* d) {
    Handle h(b_, Data(), O_RDONLY, "seq-read-block");
    std::vector<char> chunk(o_.chunk);
    for (std::uint64_t b = 0; b < blocks_; ++b) {
      const std::uint64_t t0 = NowNs();
      ssize_t r = ReadAll(b_, h.get(), chunk.data(), chunk.size());
      d->ops[0].hist.Record(NowNs() - t0);
      if (r < 0) Fail(static_cast<int>(r), "seq-read-block: read " + Data());
      if (static_cast<std::size_t>(r) != chunk.size()) Fail(-EIO, "seq-read-block: short read of " + Data());
      Verify(d, b, chunk.data(), chunk.size(), "seq-read-block");
      d->bytes += o_.chunk;
    }
  });
}

void Suite::Seeks() {
  const int seekers = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(o_.seekers), blocks_));
  Phase("random-seeks", seekers, PhaseData{"SEEK", "SEEK-WRITE"}, [&](PhaseData* d) {
    Workers(seekers, d, [&](int t, PhaseData* l, const std::atomic<bool>& stopping) {
      Handle h(b_, Data(), O_RDWR, "random-seeks");
      std::mt19937_64 rng(Mix(o_.seed, 1000 + static_cast<std::uint64_t>(t)));
      // Seeker t owns the chunks b with b % seekers == t, so no two seekers
      // touch one chunk and each knows its chunks' generations.
      const std::uint64_t owned = (blocks_ - static_cast<std::uint64_t>(t) + seekers - 1) / seekers;
      std::uint64_t n = o_.seeks / seekers + (static_cast<std::uint64_t>(t) < o_.seeks % seekers ? 1 : 0);
      std::vector<char> chunk(o_.chunk);
      for (std::uint64_t i = 0; i < n && !stopping; ++i) {
        const std::uint64_t b = static_cast<std::uint64_t>(t) + (rng() % owned) * seekers;
        const off_t off = static_cast<off_t>(b * o_.chunk);
        std::uint64_t t0 = NowNs();
        ssize_t r = b_->PRead(h.get(), chunk.data(), chunk.size(), off);
        l->ops[0].hist.Record(NowNs() - t0);
        if (r < 0) Fail(static_cast<int>(r), "random-seeks: read " + Data());
        if (static_cast<std::size_t>(r) != chunk.size()) Fail(-EIO, "random-seeks: short read of " + Data());
        Verify(l, b, chunk.data(), chunk.size(), "random-seeks");
        l->bytes += o_.chunk;
        if (rng() % 10 == 0) {  // bonnie++ writes back a tenth, dirtied
          ++gen_[b];
          pattern_.Fill(b, gen_[b], chunk.data(), chunk.size());
          t0 = NowNs();
          PWriteAll(b_, h.get(), chunk.data(), chunk.size(), off, "random-seeks: write " + Data());
          l->ops[1].hist.Record(NowNs() - t0);
          l->bytes += o_.chunk;
        }
      }
      h.Close("random-seeks");
    });
  });
}

void Suite::Create(const std::string& phase, const std::vector<std::uint64_t>& order) {
  const int threads = o_.threads;
  Phase(phase, threads, PhaseData{"CREATE"}, [&](PhaseData* d) {
    Workers(threads, d, [&](int t, PhaseData* l, const std::atomic<bool>& stopping) {
      std::vector<char> content(o_.file_size);
      for (std::size_t i = static_cast<std::size_t>(t); i < order.size() && !stopping; i += threads) {
        const std::uint64_t f = order[i];
        const std::string path = FilesDir() + "/" + FileName(f, o_.seed);
        if (!content.empty()) pattern_.Fill(f, 0, content.data(), content.size());
        const std::uint64_t t0 = NowNs();
        int h = b_->Open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (h < 0) Fail(h, phase + ": create " + path);
        try {
          if (!content.empty()) WriteAll(b_, h, content.data(), content.size(), phase + ": write " + path);
          if (o_.fsync) {
            int r = b_->Fsync(h);
            if (r < 0) Fail(r, phase + ": fsync " + path);
          }
        } catch (...) {
          b_->Close(h);
          throw;
        }
        int r = b_->Close(h);
        if (r < 0) Fail(r, phase + ": close " + path);
        l->ops[0].hist.Record(NowNs() - t0);
        l->bytes += o_.file_size;
      }
    });
  });
}

// Stats every file, in directory order (order == null) or the given one;
// with file_size > 0 also reads and checks each.
void Suite::StatFiles(const std::string& phase, const std::vector<std::uint64_t>* order) {
  const int threads = o_.threads;
  Phase(phase, threads, PhaseData{"STAT"}, [&](PhaseData* d) {
    const std::vector<std::string> names = FileNames(phase, order);
    if (names.size() != o_.files) {
      d->Mismatch(phase + ": " + std::to_string(names.size()) + " files in " + FilesDir() + ", expected " +
                  std::to_string(o_.files));
    }
    Workers(threads, d, [&](int t, PhaseData* l, const std::atomic<bool>& stopping) {
      std::vector<char> got(o_.file_size), want(o_.file_size);
      for (std::size_t i = static_cast<std::size_t>(t); i < names.size() && !stopping; i += threads) {
        const std::string path = FilesDir() + "/" + names[i];
        const std::uint64_t t0 = NowNs();
        struct stat st;
        int r = b_->Stat(path, &st);
        if (r < 0) Fail(r, phase + ": stat " + path);
        if (o_.file_size > 0) {
          Handle h(b_, path, O_RDONLY, phase);
          ssize_t n = ReadAll(b_, h.get(), got.data(), got.size());
          if (n < 0) Fail(static_cast<int>(n), phase + ": read " + path);
          h.Close(phase);
        }
        l->ops[0].hist.Record(NowNs() - t0);
        if (static_cast<std::uint64_t>(st.st_size) != o_.file_size) {
          l->Mismatch(phase + ": " + path + " has " + std::to_string(st.st_size) + " bytes");
        } else if (o_.file_size > 0) {
          const std::uint64_t f = std::strtoull(names[i].substr(0, 10).c_str(), nullptr, 10);
          pattern_.Fill(f, 0, want.data(), want.size());
          l->verified_bytes += want.size();
          if (want != got) l->Mismatch(phase + ": content of " + path);
        }
        l->bytes += o_.file_size;
      }
    });
  });
}

std::vector<std::string> Suite::FileNames(const std::string& phase, const std::vector<std::uint64_t>* order) {
  std::vector<std::string> names;
  if (order == nullptr) {
    int r = b_->ListDir(FilesDir(), &names);
    if (r < 0) Fail(r, phase + ": list " + FilesDir());
  } else {
    for (std::uint64_t f : *order) names.push_back(FileName(f, o_.seed));
  }
  return names;
}

void Suite::DeleteFiles(const std::string& phase, const std::vector<std::uint64_t>* order) {
  const int threads = o_.threads;
  Phase(phase, threads, PhaseData{"DELETE"}, [&](PhaseData* d) {
    const std::vector<std::string> names = FileNames(phase, order);
    Workers(threads, d, [&](int t, PhaseData* l, const std::atomic<bool>& stopping) {
      for (std::size_t i = static_cast<std::size_t>(t); i < names.size() && !stopping; i += threads) {
        const std::string path = FilesDir() + "/" + names[i];
        const std::uint64_t t0 = NowNs();
        int r = b_->Unlink(path);
        if (r < 0) Fail(r, phase + ": unlink " + path);
        l->ops[0].hist.Record(NowNs() - t0);
      }
    });
    std::vector<std::string> left;
    if (b_->ListDir(FilesDir(), &left) == 0 && !left.empty()) {
      d->Mismatch(phase + ": " + std::to_string(left.size()) + " files left in " + FilesDir());
    }
  });
}

void Suite::StreamWrite() {
  Phase("stream-write", 1, o_.fsync ? PhaseData{"WRITE", "FSYNC"} : PhaseData{"WRITE"}, [&](PhaseData* d) {
    std::vector<char> piece(kStreamPiece);
    const std::uint64_t pieces = (o_.stream_size + kStreamPiece - 1) / kStreamPiece;
    for (std::uint64_t f = 0; f < o_.stream_count; ++f) {
      const std::string path = o_.workdir + "/stream-" + std::to_string(f);
      const std::uint64_t f0 = NowNs();
      Handle h(b_, path, O_WRONLY | O_CREAT | O_TRUNC, "stream-write");
      std::uint64_t left = o_.stream_size;
      for (std::uint64_t p = 0; p < pieces; ++p) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, kStreamPiece));
        pattern_.Fill(Mix(f, p), 0, piece.data(), n);
        const std::uint64_t t0 = NowNs();
        WriteAll(b_, h.get(), piece.data(), n, "stream-write: write " + path);
        d->ops[0].hist.Record(NowNs() - t0);
        d->bytes += n;
        left -= n;
      }
      if (o_.fsync) {
        const std::uint64_t t0 = NowNs();
        int r = b_->Fsync(h.get());
        if (r < 0) Fail(r, "stream-write: fsync " + path);
        d->ops[1].hist.Record(NowNs() - t0);
      }
      h.Close("stream-write");
      const double s = static_cast<double>(NowNs() - f0) / 1e9;
      d->file_mb_per_s.push_back(s > 0 ? static_cast<double>(o_.stream_size) / 1e6 / s : 0);
    }
  });
}

void Suite::StreamRead() {
  Phase("stream-read", 1, PhaseData{"READ"}, [&](PhaseData* d) {
    std::vector<char> piece(kStreamPiece), want(kStreamPiece);
    const std::uint64_t pieces = (o_.stream_size + kStreamPiece - 1) / kStreamPiece;
    for (std::uint64_t f = 0; f < o_.stream_count; ++f) {
      const std::string path = o_.workdir + "/stream-" + std::to_string(f);
      const std::uint64_t f0 = NowNs();
      Handle h(b_, path, O_RDONLY, "stream-read");
      std::uint64_t left = o_.stream_size;
      for (std::uint64_t p = 0; p < pieces; ++p) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, kStreamPiece));
        const std::uint64_t t0 = NowNs();
        ssize_t r = ReadAll(b_, h.get(), piece.data(), n);
        d->ops[0].hist.Record(NowNs() - t0);
        if (r < 0) Fail(static_cast<int>(r), "stream-read: read " + path);
        if (static_cast<std::size_t>(r) != n) Fail(-EIO, "stream-read: short read of " + path);
        pattern_.Fill(Mix(f, p), 0, want.data(), n);
        d->verified_bytes += n;
        if (std::memcmp(piece.data(), want.data(), n) != 0) {
          d->Mismatch("stream-read: " + path + " MiB " + std::to_string(p));
        }
        d->bytes += n;
        left -= n;
      }
      h.Close("stream-read");
      const double s = static_cast<double>(NowNs() - f0) / 1e9;
      d->file_mb_per_s.push_back(s > 0 ? static_cast<double>(o_.stream_size) / 1e6 / s : 0);
    }
  });
}

// Removes what the suite created (best effort: after an error too).
void Suite::Cleanup() {
  std::vector<std::string> names;
  if (b_->ListDir(FilesDir(), &names) == 0) {
    for (const auto& n : names) b_->Unlink(FilesDir() + "/" + n);
    b_->Rmdir(FilesDir());
  }
  if (b_->ListDir(o_.workdir, &names) == 0) {
    for (const auto& n : names) b_->Unlink(o_.workdir + "/" + n);
  }
  b_->Rmdir(o_.workdir);
}

FsResult Suite::Run() {
  const bool chr = Wants("chr"), block = Wants("block"), seeks = Wants("seeks"), files = Wants("files"),
             stream = Wants("stream");
  const bool data_phases = chr || block || seeks;
  if (seeks && !chr && !block) throw ConfigError("fs: the seeks phase needs a data file: add the chr or block group");
  if (data_phases) {
    if (o_.chunk == 0 || o_.chunk > Pattern::kMaxChunk) throw ConfigError("fs: --chunk must be 1 byte to 1M");
    blocks_ = o_.size / o_.chunk;
    if (blocks_ == 0) throw ConfigError("fs: --size must be at least one chunk (" + std::to_string(o_.chunk) + " bytes)");
    try {
      gen_.assign(blocks_, 0);  // one byte per chunk
    } catch (const std::bad_alloc&) {
      throw ConfigError("fs: --size " + std::to_string(o_.size) + " in chunks of " + std::to_string(o_.chunk) +
                        " bytes: too many chunks to track; use a larger --chunk");
    }
  }
  if (stream && (o_.stream_count == 0 || o_.stream_size == 0)) {
    throw ConfigError("fs: the stream group needs --stream N×SIZE, e.g. --stream 4x256M");
  }
  if (files && o_.files == 0) throw ConfigError("fs: --files must be at least 1");
  if (o_.threads < 1 || o_.seekers < 1) throw ConfigError("fs: --threads and --seekers must be at least 1");

  int r = b_->Mkdir(o_.workdir);
  if (r < 0 && r != -EEXIST) {
    throw SetupError("fs: cannot create the work directory " + o_.workdir + " in " + b_->Describe() + ": " +
                     std::strerror(-r));
  }
  try {
    if (chr) WriteChr();
    if (block) WriteBlock();
    if (block) Rewrite();
    if (chr) ReadChr();
    if (block) ReadBlock();
    if (seeks) Seeks();
    if (data_phases) b_->Unlink(Data());
    if (files) {
      r = b_->Mkdir(FilesDir());
      if (r < 0 && r != -EEXIST) Fail(r, "files: mkdir " + FilesDir());
      std::vector<std::uint64_t> order(o_.files);
      std::iota(order.begin(), order.end(), 0);
      Create("seq-create", order);
      StatFiles("seq-stat", nullptr);
      DeleteFiles("seq-delete", nullptr);
      std::mt19937_64 rng(Mix(o_.seed, 7));
      std::shuffle(order.begin(), order.end(), rng);
      Create("rand-create", order);
      std::shuffle(order.begin(), order.end(), rng);
      StatFiles("rand-stat", &order);
      std::shuffle(order.begin(), order.end(), rng);
      DeleteFiles("rand-delete", &order);
    }
    if (stream) {
      StreamWrite();
      StreamRead();
    }
  } catch (const Stop& s) {
    if (r_.error.empty()) r_.error = s.what;
  }
  Cleanup();
  return r_;
}

}  // namespace

Pattern::Pattern(std::uint64_t seed) : seed_(seed), base_(kBaseBytes) {
  std::uint64_t s = seed ^ 0x5DEECE66Dull;
  for (std::size_t i = 0; i < base_.size(); i += 8) {
    const std::uint64_t v = SplitMix(&s);
    std::memcpy(&base_[i], &v, 8);
  }
}

void Pattern::Fill(std::uint64_t index, std::uint8_t generation, char* buf, std::size_t n) const {
  const std::uint64_t key = Mix(Mix(seed_, index), generation);
  const std::size_t off = static_cast<std::size_t>(key % (kBaseBytes - kMaxChunk)) & ~std::size_t{7};
  std::memcpy(buf, &base_[off], std::min(n, kMaxChunk));
  for (std::size_t s = 0; s + 8 <= n; s += 512) {
    const std::uint64_t stamp = key + s;
    std::memcpy(buf + s, &stamp, 8);
  }
}

FsResult RunSuite(FsBackend* backend, const FsOptions& options) {
  Suite s(backend, options);
  return s.Run();
}

}  // namespace storebench::fs_suite
