// One Apache HBase 2.6 standalone server for storebench's tests and
// benchmarks, started by scripts/servers/hbase.sh: ZooKeeper, the master and
// one region server in one JVM, exactly as `hbase master start` runs them in
// local mode (hbase.cluster.distributed=false): HMasterCommandLine starts a
// MiniZooKeeperCluster and a LocalHBaseCluster. Data lives in dir/data on the
// local file system (hbase.unsafe.stream.capability.enforce=false, which
// HBase's own standalone setup needs), ZooKeeper's in dir/zookeeper.
//
// Every socket is on 127.0.0.1: the ZooKeeper client port
// (hbase.zookeeper.property.clientPortAddress), the master's and the region
// server's RPC ports (hbase.master.ipc.address, hbase.regionserver.ipc.address);
// both web UIs are off (info ports -1). The servers publish 127.0.0.1 as their
// host name (hbase.master.hostname, hbase.unsafe.regionserver.hostname), so the
// locations a client reads from ZooKeeper and hbase:meta are loopback
// addresses, never a host name that could resolve elsewhere.
//
// Modes (first argument), options as name=value:
//   serve dir= zk= master= rs= [table=usertable] [family=family] [presplit=1]
//         [timeout_s=90]
//     starts the cluster, then, through HBase's own Java client (Admin and
//     Table), creates the table with one column family (pre-split into
//     `presplit` regions, see splitPoints) unless it exists, waits until all
//     its regions are online, puts a row, reads it back and deletes it; then
//     writes dir/ready and prints one line on stdout:
//       storebench-hbase ready zk=127.0.0.1:P master=127.0.0.1:P rs=127.0.0.1:P table=T regions=N
//     and runs until the process is stopped. TERM shuts the cluster down in
//     order (regions flushed and closed, then the master, then ZooKeeper),
//     within 7 s; past that the JVM exits anyway, and what was acknowledged is
//     in the write-ahead log under dir/data.
//   count zk=PORT [table=usertable]
//     prints the table's row count: a full scan with FirstKeyOnlyFilter.
//   check zk=PORT [table=usertable] [family=the table's first]
//     puts a row outside the YCSB key space, gets it back, deletes it; prints
//     "ok" or fails (exit 1).
package storebench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.master.HMaster;
import org.apache.hadoop.hbase.master.HMasterCommandLine;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.util.ToolRunner;

public final class HBaseStandalone {
  private HBaseStandalone() {}

  // The row the readiness check and `check` write, then delete: it sorts
  // after every YCSB key ("user..."), so it never collides with a record.
  private static final byte[] CHECK_ROW = Bytes.toBytes("~storebench-check");
  private static final byte[] CHECK_QUALIFIER = Bytes.toBytes("check");

  public static void main(String[] args) {
    int code;
    try {
      if (args.length == 0) throw new IllegalArgumentException("usage: serve|count|check name=value...");
      Map<String, String> opt = options(Arrays.copyOfRange(args, 1, args.length));
      switch (args[0]) {
        case "serve": serve(opt); return;  // runs until the JVM is stopped
        case "count": code = count(opt); break;
        case "check": code = check(opt); break;
        default: throw new IllegalArgumentException("unknown mode '" + args[0] + "' (serve|count|check)");
      }
    } catch (Throwable t) {
      t.printStackTrace();
      System.err.println("HBaseStandalone: " + t);
      code = 2;
    }
    System.out.flush();
    // HBase's client and server threads are not all daemons: halt, so a
    // failed start never leaves a JVM that will not become ready.
    Runtime.getRuntime().halt(code);
  }

  private static void serve(Map<String, String> opt) throws Exception {
    Path dir = Path.of(need(opt, "dir")).toAbsolutePath();
    int zk = port(opt, "zk");
    int master = port(opt, "master");
    int rs = port(opt, "rs");
    String table = opt.getOrDefault("table", "usertable");
    String family = opt.getOrDefault("family", "family");
    int presplit = Integer.parseInt(opt.getOrDefault("presplit", "1"));
    if (presplit < 1 || presplit > 1000) throw new IllegalArgumentException("presplit must be in [1, 1000]");
    long deadline = System.currentTimeMillis() + 1000L * Long.parseLong(opt.getOrDefault("timeout_s", "90"));

    Configuration conf = HBaseConfiguration.create();
    conf.setBoolean("hbase.cluster.distributed", false);
    conf.set("hbase.rootdir", dir.resolve("data").toUri().toString());
    conf.set("hbase.tmp.dir", dir.resolve("tmp").toString());
    conf.set("hbase.local.dir", dir.resolve("tmp/local").toString());
    conf.set("hadoop.tmp.dir", dir.resolve("tmp/hadoop").toString());
    conf.set("hbase.zookeeper.property.dataDir", dir.resolve("zookeeper").toString());
    conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);
    conf.set("hbase.zookeeper.quorum", "127.0.0.1");
    conf.setInt("hbase.zookeeper.property.clientPort", zk);
    conf.set("hbase.zookeeper.property.clientPortAddress", "127.0.0.1");
    conf.setInt("hbase.master.port", master);
    conf.setInt("hbase.master.info.port", -1);
    conf.set("hbase.master.ipc.address", "127.0.0.1");
    conf.set("hbase.master.hostname", "127.0.0.1");
    conf.setInt("hbase.regionserver.port", rs);
    conf.setInt("hbase.regionserver.info.port", -1);
    conf.setBoolean("hbase.regionserver.info.port.auto", false);
    conf.set("hbase.regionserver.ipc.address", "127.0.0.1");
    conf.set("hbase.unsafe.regionserver.hostname", "127.0.0.1");
    // One region server: the master need not wait its default 4.5 s for more.
    conf.setInt("hbase.master.wait.on.regionservers.mintostart", 1);
    conf.setInt("hbase.master.wait.on.regionservers.maxtostart", 1);
    // The master counts a region server as online from its first report,
    // which comes one interval (3 s by default) after it checked in.
    conf.setInt("hbase.regionserver.msginterval", 1000);
    // Sessions that survive the pauses of a loaded 2-core machine (a test
    // build beside the server stalls the JVM for seconds): with ZooKeeper's
    // 90 s default a region server whose session expired aborted itself
    // (YouAreDeadException). The in-process ZooKeeper grants at most 20
    // ticks, so the tick goes up with the asked-for timeout.
    conf.setInt("zookeeper.session.timeout", 180000);
    conf.setInt("hbase.zookeeper.property.tickTime", 9000);
    conf.setInt("hbase.zookeeper.property.maxSessionTimeout", 180000);

    // HBase's own shutdown hook stops the master first, which stops the
    // in-process ZooKeeper, and the region server then retries ZooKeeper
    // until it is killed; the launcher's hook (below) stops the cluster in
    // order instead.
    conf.setBoolean("hbase.shutdown.hook", false);

    // What `hbase master start` does in local mode, on this thread's conf.
    CountDownLatch ended = new CountDownLatch(1);
    Thread cluster = new Thread(() -> {
      int rc;
      try {
        rc = ToolRunner.run(conf, new HMasterCommandLine(HMaster.class), new String[] {"start"});
      } catch (Throwable t) {
        t.printStackTrace();
        rc = 2;
      }
      System.err.println("HBaseStandalone: the master ended (" + rc + ")");
      System.out.flush();
      ended.countDown();
      // 0: a clean stop (TERM runs HBase's shutdown hook, which stops the
      // servers): exit, letting the hooks finish. Else the start failed: halt.
      if (rc == 0) System.exit(0);
      Runtime.getRuntime().halt(rc);
    }, "storebench-hbase-master");
    cluster.start();

    Configuration client = clientConf(zk);
    // This loop is the one that waits, till the deadline: each try is short.
    client.setInt("hbase.client.pause", 100);
    client.setInt("hbase.rpc.timeout", 10000);
    client.setInt("hbase.client.operation.timeout", 20000);
    TableName tn = TableName.valueOf(table);
    byte[][] splits = splitPoints(presplit);
    Throwable last = null;
    int regions = -1;
    while (true) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("table " + table + " did not answer in time", last);
      }
      try (Connection conn = ConnectionFactory.createConnection(client);
           Admin admin = conn.getAdmin()) {
        if (!admin.isTableAvailable(tn)) {
          if (!admin.tableExists(tn)) {
            admin.createTable(TableDescriptorBuilder.newBuilder(tn)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(family)).build(),
                splits.length == 0 ? null : splits);
          }
          if (!admin.isTableAvailable(tn)) throw new IOException("table " + table + " not yet available");
        }
        List<RegionInfo> infos = admin.getRegions(tn);
        regions = infos.size();
        try (Table t = conn.getTable(tn)) {
          roundTrip(t, Bytes.toBytes(family));
        }
        break;
      } catch (Throwable t) {
        last = t;
        Thread.sleep(200);
      }
    }
    String line = "storebench-hbase ready zk=127.0.0.1:" + zk + " master=127.0.0.1:" + master
        + " rs=127.0.0.1:" + rs + " table=" + table + " regions=" + regions;
    // TERM (stop_pids): a cluster shutdown as `hbase master stop
    // --shutDownCluster` asks for it (the region server closes its regions,
    // flushing them, then the master and ZooKeeper stop), bounded so that the
    // JVM is gone before the script's KILL after 10 s.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      if (ended.getCount() == 0) return;
      Configuration c = new Configuration(client);
      c.setInt("hbase.client.retries.number", 1);
      c.setInt("hbase.rpc.timeout", 3000);
      c.setInt("hbase.client.operation.timeout", 3000);
      try (Connection conn = ConnectionFactory.createConnection(c); Admin admin = conn.getAdmin()) {
        admin.shutdown();
        ended.await(7, TimeUnit.SECONDS);
      } catch (Throwable t) {
        System.err.println("HBaseStandalone: cluster shutdown failed: " + t);
      }
    }, "storebench-hbase-stop"));
    Files.writeString(dir.resolve("ready"), line + "\n", StandardCharsets.UTF_8);
    System.out.println(line);
    System.out.flush();
    ended.await();  // until the process is stopped
  }

  // Pre-split points on YCSB's key space, the scheme YCSB's HBase binding
  // documents ("user" + 1000 + i * (9999 - 1000) / n): keys are "user" + a
  // decimal number (insertorder=hashed: a 64-bit FNV hash, mostly 18-19
  // digits), so the first four digits spread them over 1000..9999. For n
  // regions the n - 1 points are i = 1..n-1 (YCSB's shell line uses i = 1..n,
  // n + 1 regions). n = 1: no split.
  static byte[][] splitPoints(int n) {
    byte[][] out = new byte[n - 1][];
    for (int i = 1; i < n; i++) out[i - 1] = Bytes.toBytes("user" + (1000 + i * (9999 - 1000) / n));
    return out;
  }

  private static void roundTrip(Table t, byte[] family) throws IOException {
    byte[] value = Bytes.toBytes(Long.toString(System.nanoTime()));
    t.put(new Put(CHECK_ROW).addColumn(family, CHECK_QUALIFIER, value));
    Result r = t.get(new Get(CHECK_ROW).addColumn(family, CHECK_QUALIFIER));
    if (!Arrays.equals(value, r.getValue(family, CHECK_QUALIFIER))) {
      throw new IOException("read back " + r + " after a put of " + Bytes.toString(value));
    }
    t.delete(new Delete(CHECK_ROW));
  }

  private static int count(Map<String, String> opt) throws IOException {
    TableName tn = TableName.valueOf(opt.getOrDefault("table", "usertable"));
    long n = 0;
    try (Connection conn = ConnectionFactory.createConnection(clientConf(port(opt, "zk")));
         Table t = conn.getTable(tn)) {
      Scan scan = new Scan().setFilter(new FirstKeyOnlyFilter()).setCaching(1000).setCacheBlocks(false);
      try (ResultScanner rs = t.getScanner(scan)) {
        for (Result r : rs) n++;
      }
    }
    System.out.println(n);
    return 0;
  }

  private static int check(Map<String, String> opt) throws IOException {
    TableName tn = TableName.valueOf(opt.getOrDefault("table", "usertable"));
    try (Connection conn = ConnectionFactory.createConnection(clientConf(port(opt, "zk")));
         Table t = conn.getTable(tn)) {
      // Without family=, the table's own (first) column family.
      String family = opt.get("family");
      byte[] f = family != null ? Bytes.toBytes(family) : t.getDescriptor().getColumnFamilyNames().iterator().next();
      roundTrip(t, f);
    }
    System.out.println("ok");
    return 0;
  }

  // A client of the server on 127.0.0.1 whose ZooKeeper listens on zk. Its
  // retries and timeouts are bounded (HBase's defaults retry for minutes), so
  // `count` and `check` against a server that is gone fail within a minute.
  private static Configuration clientConf(int zk) {
    Configuration c = HBaseConfiguration.create();
    c.set("hbase.zookeeper.quorum", "127.0.0.1");
    c.setInt("hbase.zookeeper.property.clientPort", zk);
    c.setInt("zookeeper.recovery.retry", 1);
    c.setInt("hbase.client.retries.number", 3);
    c.setInt("hbase.client.pause", 200);
    c.setInt("hbase.rpc.timeout", 20000);
    c.setInt("hbase.client.operation.timeout", 30000);
    c.setInt("hbase.client.meta.operation.timeout", 30000);
    return c;
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> opt = new HashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq <= 0) throw new IllegalArgumentException("argument '" + a + "' is not name=value");
      opt.put(a.substring(0, eq), a.substring(eq + 1));
    }
    return opt;
  }

  private static String need(Map<String, String> opt, String name) {
    String v = opt.get(name);
    if (v == null) throw new IllegalArgumentException("missing " + name + "=...");
    return v;
  }

  private static int port(Map<String, String> opt, String name) {
    int p = Integer.parseInt(need(opt, name));
    if (p < 1 || p > 65535) throw new IllegalArgumentException(name + " must be a TCP port");
    return p;
  }
}
