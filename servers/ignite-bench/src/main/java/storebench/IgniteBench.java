// The harness shared by storebench's two Java peers in bench/ignite.sh:
// ThinClientBench (Ignite's Java thin client) and ClientNodeBench (a client
// node, the thick client of Yardstick and YCSB's ignite binding). Each peer
// only opens its client and wraps its cache in a Store; everything that is
// measured is here, so the two differ in the client alone.
//
// A run: a load phase puts every record with putAll in batches (not
// measured; load=false skips it when the records are there already), then
// the warm-up (every thread runs the operation, nothing is counted), then the
// measured phase: each thread runs the operation on a key drawn uniformly at
// random (ThreadLocalRandom) over [0, recordcount) until the duration is up,
// timing each call with System.nanoTime into its own HdrHistogram. At the end
// one line goes to stdout:
//   RESULT tool=java-thin op=get threads=8 ops=123456 errors=0 misses=0
//     seconds=10.00 ops_per_s=12345.6 p50_us=40 p99_us=321 cpu_s=4.56
//     cpu_us_per_op=36.9 start_unix_ms=... end_unix_ms=...
// cpu_s is the process's CPU time (every JVM thread: the client's, the
// JIT's, the GC's; com.sun.management.OperatingSystemMXBean) over the
// measured phase only: read when the last thread has finished its warm-up
// and when the last one has finished. start_unix_ms and end_unix_ms bound
// the measured phase in wall-clock time (bench/ignite.sh takes the nodes'
// CPU time over it from /proc).
//
// Records are those of storebench's ignite binding: a BinaryObject of type
// name <cache> (usertable) with String fields field0..field<fieldcount-1>,
// each fieldlength random printable ASCII characters (YCSB's values); a get
// reads every field of the value (YCSB's readallfields=true), a put writes a
// whole new record (writeallfields=true). Keys are the String "user" + N
// (keys=ordered, the default), or Java YCSB's "user" + FNV-1a hash of N
// (keys=hashed, YCSB's and storebench's insertorder=hashed: the same keys
// storebench uses, so the three tools read and write one key set).
//
// Options (name=value arguments), common to both peers: op (get|put),
// threads (1), duration (seconds, 10), warmup (seconds, 3), recordcount
// (100000), fieldcount (10), fieldlength (100), cache (usertable), keys
// (ordered|hashed), load (true|false, default true), batch (records per
// putAll in the load, 500), loadthreads (4). Each peer adds its own (see it).
package storebench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.HdrHistogram.Histogram;
import org.apache.ignite.IgniteBinary;
import org.apache.ignite.binary.BinaryObject;
import org.apache.ignite.binary.BinaryObjectBuilder;

public final class IgniteBench {
  private IgniteBench() {}

  /** One client's cache, shared by every thread (both Ignite clients are thread-safe). */
  interface Store extends AutoCloseable {
    IgniteBinary binary();

    BinaryObject get(String key);

    void put(String key, BinaryObject value);

    void putAll(Map<String, BinaryObject> batch);

    @Override
    void close();
  }

  /** Opens a peer's client from the options (name=value arguments). */
  interface Opener {
    Store open(Options opt) throws Exception;
  }

  /** name=value arguments; every one must be read, so a misspelt option is an error. */
  static final class Options {
    private final Map<String, String> values = new TreeMap<>();
    private final Map<String, Boolean> used = new HashMap<>();

    Options(String[] args) {
      for (String a : args) {
        int eq = a.indexOf('=');
        if (eq <= 0) fail("argument '" + a + "' is not name=value");
        values.put(a.substring(0, eq), a.substring(eq + 1));
      }
    }

    String get(String name, String dflt) {
      used.put(name, true);
      String v = values.get(name);
      if (v == null && dflt == null) fail("missing " + name + "=...");
      return v == null ? dflt : v;
    }

    long getLong(String name, long dflt, long min) {
      String v = get(name, Long.toString(dflt));
      long n;
      try {
        n = Long.parseLong(v);
      } catch (NumberFormatException e) {
        fail(name + " must be a whole number, not '" + v + "'");
        return 0;
      }
      if (n < min) fail(name + " must be at least " + min + ", not " + n);
      return n;
    }

    boolean getBool(String name, boolean dflt) {
      String v = get(name, Boolean.toString(dflt));
      if (!v.equals("true") && !v.equals("false")) fail(name + " must be true or false, not '" + v + "'");
      return v.equals("true");
    }

    void checkAllUsed() {
      for (String k : values.keySet()) {
        if (!used.containsKey(k)) fail("unknown option '" + k + "' (known: " + String.join(", ", new TreeMap<>(used).keySet()) + ")");
      }
    }
  }

  /** Runs one benchmark with the client `opener` opens; `tool` names it in the RESULT line. */
  static void main(String tool, Opener opener, String[] args) {
    try {
      run(tool, opener, args);
    } catch (Throwable t) {
      t.printStackTrace();
      fail("failed: " + t);
    }
    System.out.flush();
    // Ignite's threads are not daemons; the clients are closed already.
    Runtime.getRuntime().halt(0);
  }

  private static void run(String tool, Opener opener, String[] args) throws Exception {
    Options opt = new Options(args);
    String op = opt.get("op", "get");
    if (!op.equals("get") && !op.equals("put")) fail("op must be get or put, not '" + op + "'");
    int threads = (int) opt.getLong("threads", 1, 1);
    long durationS = opt.getLong("duration", 10, 1);
    long warmupS = opt.getLong("warmup", 3, 0);
    long records = opt.getLong("recordcount", 100000, 1);
    int fieldCount = (int) opt.getLong("fieldcount", 10, 1);
    int fieldLength = (int) opt.getLong("fieldlength", 100, 1);
    String cache = opt.get("cache", "usertable");
    String keys = opt.get("keys", "ordered");
    if (!keys.equals("ordered") && !keys.equals("hashed")) fail("keys must be ordered or hashed, not '" + keys + "'");
    boolean load = opt.getBool("load", true);
    int batch = (int) opt.getLong("batch", 500, 1);
    int loadThreads = (int) opt.getLong("loadthreads", 4, 1);

    Record rec = new Record(cache, fieldCount, fieldLength, keys.equals("hashed"));
    try (Store store = opener.open(opt)) {
      opt.checkAllUsed();
      if (load) {
        long t0 = System.nanoTime();
        load(store, rec, records, batch, loadThreads);
        System.err.printf(Locale.ROOT, "%s: loaded %d records in %.1f s%n", tool, records, (System.nanoTime() - t0) / 1e9);
      }
      Result r = measure(store, rec, op.equals("get"), threads, warmupS, durationS, records);
      double seconds = r.nanos / 1e9;
      System.out.printf(Locale.ROOT,
          "RESULT tool=%s op=%s threads=%d ops=%d errors=%d misses=%d seconds=%.2f ops_per_s=%.1f p50_us=%d p99_us=%d cpu_s=%.2f cpu_us_per_op=%.2f start_unix_ms=%d end_unix_ms=%d%n",
          tool, op, threads, r.ops, r.errors, r.misses, seconds, r.ops / seconds,
          r.hist.getValueAtPercentile(50) / 1000, r.hist.getValueAtPercentile(99) / 1000,
          r.cpuNanos / 1e9, r.ops > 0 ? r.cpuNanos / 1e3 / r.ops : 0.0, r.startUnixMs, r.endUnixMs);
      if (r.firstError != null) {
        System.err.println(tool + ": " + r.errors + " operations failed; the first:");
        r.firstError.printStackTrace();
      }
    }
  }

  /** Keys and values: the record layout of storebench's ignite binding. */
  static final class Record {
    final String typeName;
    final String[] fieldNames;
    final int fieldLength;
    final boolean hashedKeys;

    Record(String typeName, int fieldCount, int fieldLength, boolean hashedKeys) {
      this.typeName = typeName;
      this.fieldNames = new String[fieldCount];
      for (int i = 0; i < fieldCount; i++) fieldNames[i] = "field" + i;
      this.fieldLength = fieldLength;
      this.hashedKeys = hashedKeys;
    }

    String key(long n) {
      return "user" + (hashedKeys ? fnvHash64(n) : n);
    }

    /** A new record: every field fieldLength random printable ASCII characters (' '..'~'). */
    BinaryObject value(IgniteBinary binary, ThreadLocalRandom rnd, char[] buf) {
      BinaryObjectBuilder b = binary.builder(typeName);
      for (String f : fieldNames) {
        for (int i = 0; i < fieldLength;) {
          long bits = rnd.nextLong();
          for (int j = 0; j < 7 && i < fieldLength; j++, bits >>>= 9) buf[i++] = (char) (' ' + (int) ((bits & 511) % 95));
        }
        b.setField(f, new String(buf, 0, fieldLength), String.class);
      }
      return b.build();
    }

    /** Reads every field, as a YCSB read with readallfields=true; returns their total length. */
    long readAll(BinaryObject v) {
      long n = 0;
      for (String f : fieldNames) {
        String s = v.field(f);
        if (s != null) n += s.length();
      }
      return n;
    }
  }

  /** Java YCSB's Utils.fnvhash64 (FNV-1a over the 8 bytes of n, low first; absolute value). */
  static long fnvHash64(long n) {
    long h = 0xCBF29CE484222325L;
    for (int i = 0; i < 8; i++) {
      h ^= n & 0xff;
      n >>= 8;
      h *= 1099511628211L;
    }
    return Math.abs(h);
  }

  /** Puts records 0..records-1 with putAll in batches of `batch`, the ranges split over `loadThreads` threads. */
  private static void load(Store store, Record rec, long records, int batch, int loadThreads) throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < loadThreads; t++) {
      long from = records * t / loadThreads, to = records * (t + 1) / loadThreads;
      Thread th = new Thread(() -> {
        try {
          ThreadLocalRandom rnd = ThreadLocalRandom.current();
          char[] buf = new char[rec.fieldLength];
          // A TreeMap: putAll takes its keys' locks in order (no deadlock between loaders).
          Map<String, BinaryObject> m = new TreeMap<>();
          for (long n = from; n < to; n++) {
            m.put(rec.key(n), rec.value(store.binary(), rnd, buf));
            if (m.size() == batch || n == to - 1) {
              store.putAll(m);
              m = new TreeMap<>();
            }
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "load-" + t);
      ts.add(th);
      th.start();
    }
    for (Thread th : ts) th.join();
    if (failure.get() != null) throw new Exception("load failed", failure.get());
  }

  static final class Result {
    long ops, errors, misses, nanos, cpuNanos, startUnixMs, endUnixMs;
    Histogram hist;
    Throwable firstError;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** Warm-up, then the measured phase; both barriers' actions read the clock and the CPU time. */
  private static Result measure(Store store, Record rec, boolean get, int threads, long warmupS, long durationS, long records)
      throws Exception {
    // start ns, start CPU ns, end ns, end CPU ns, start and end wall-clock ms
    long[] phase = new long[6];
    final long durationNs = TimeUnit.SECONDS.toNanos(durationS);
    CyclicBarrier start = new CyclicBarrier(threads, () -> {
      phase[4] = System.currentTimeMillis();
      phase[1] = processCpuNanos();
      phase[0] = System.nanoTime();
    });
    CyclicBarrier end = new CyclicBarrier(threads, () -> {
      phase[2] = System.nanoTime();
      phase[3] = processCpuNanos();
      phase[5] = System.currentTimeMillis();
    });
    final long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmupS);
    Result[] per = new Result[threads];
    AtomicReference<Throwable> crash = new AtomicReference<>();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int idx = t;
      Thread th = new Thread(() -> {
        try {
          Result r = new Result();
          r.hist = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
          ThreadLocalRandom rnd = ThreadLocalRandom.current();
          char[] buf = new char[rec.fieldLength];
          long sink = 0;
          while (System.nanoTime() < warmEnd) sink += once(store, rec, get, rnd, buf, records, null);
          start.await();
          final long stopAt = phase[0] + durationNs;
          for (long now = System.nanoTime(); now < stopAt;) {
            long s = sink;
            try {
              sink += once(store, rec, get, rnd, buf, records, r);
              long done = System.nanoTime();
              r.hist.recordValue(Math.min(done - now, r.hist.getHighestTrackableValue()));
              r.ops++;
              now = done;
            } catch (RuntimeException e) {
              sink = s;
              r.errors++;
              if (r.firstError == null) r.firstError = e;
              now = System.nanoTime();
            }
          }
          end.await();
          if (sink == 42) System.err.print("");  // keeps the reads' results alive
          per[idx] = r;
        } catch (Throwable e) {
          crash.compareAndSet(null, e);
          start.reset();
          end.reset();
        }
      }, "bench-" + t);
      ts.add(th);
      th.start();
    }
    for (Thread th : ts) th.join();
    if (crash.get() != null) throw new Exception("a benchmark thread failed", crash.get());
    Result all = new Result();
    all.hist = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    for (Result r : per) {
      all.ops += r.ops;
      all.errors += r.errors;
      all.misses += r.misses;
      all.hist.add(r.hist);
      if (all.firstError == null) all.firstError = r.firstError;
    }
    all.nanos = phase[2] - phase[0];
    all.cpuNanos = phase[3] - phase[1];
    all.startUnixMs = phase[4];
    all.endUnixMs = phase[5];
    return all;
  }

  /** One operation on a uniformly drawn key; counts a get that found nothing in r (when measured). */
  private static long once(Store store, Record rec, boolean get, ThreadLocalRandom rnd, char[] buf, long records, Result r) {
    String key = rec.key(rnd.nextLong(records));
    if (get) {
      BinaryObject v = store.get(key);
      if (v == null) {
        if (r != null) r.misses++;
        return 0;
      }
      return rec.readAll(v);
    }
    store.put(key, rec.value(store.binary(), rnd, buf));
    return 1;
  }

  static void fail(String msg) {
    System.err.println("IgniteBench: " + msg);
    System.err.flush();
    System.out.flush();
    Runtime.getRuntime().halt(2);
  }
}
