// One Apache Ignite 2.x server node for storebench's tests and benchmarks,
// started by scripts/servers/ignite.sh, one JVM per node (so that a test can
// kill one node of a cluster by its pid, as a real deployment loses a host,
// and so each node has its own bounded heap and its own log).
//
// Every socket is on 127.0.0.1: discovery (TcpDiscoveryVmIpFinder with the
// exact discovery ports of all nodes, no multicast), communication and the
// thin-client connector on ports chosen by the script. The binary REST
// connector (11211 by default) is switched off. Work and storage directories
// are under dir/nodeK/.
//
// Node 0 waits until all nodes have joined, activates the cluster when
// persistence is on, and creates the YCSB table's cache; every node then
// waits for that cache and prints one line on stdout:
//   storebench-ignite ready node=K servers=N cache=NAME thin=127.0.0.1:P
// which the script waits for (then it also connects to the thin port).
//
// Options (name=value arguments; the script passes them all):
//   dir, node (index K), nodes (N), disco (comma-separated discovery ports of
//   all nodes, this node's at index K), comm (this node's communication
//   port), thin (this node's thin-client port), cache (default usertable),
//   backups, atomicity (atomic|transactional), write_sync (full_sync|
//   primary_sync|full_async: the cache's write synchronization mode,
//   Yardstick's -sm; default primary_sync, Ignite's), persistence (0|1),
//   offheap_mb (the default data region's maximum), fieldcount and
//   fieldprefix (the SQL fields of the table; fieldcount=0: no SQL schema),
//   timeout_s (how long to wait for the others, default 120).
// The table's SQL schema: key ycsb_key VARCHAR (the cache key, a string),
// columns <fieldprefix>0..N-1 VARCHAR; the value's binary type name and the
// SQL table name are the cache name.
package storebench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.apache.ignite.Ignite;
import org.apache.ignite.Ignition;
import org.apache.ignite.cache.CacheAtomicityMode;
import org.apache.ignite.cache.CacheWriteSynchronizationMode;
import org.apache.ignite.cache.QueryEntity;
import org.apache.ignite.cluster.ClusterState;
import org.apache.ignite.configuration.CacheConfiguration;
import org.apache.ignite.configuration.ClientConnectorConfiguration;
import org.apache.ignite.configuration.DataRegionConfiguration;
import org.apache.ignite.configuration.DataStorageConfiguration;
import org.apache.ignite.configuration.IgniteConfiguration;
import org.apache.ignite.spi.communication.tcp.TcpCommunicationSpi;
import org.apache.ignite.spi.discovery.tcp.TcpDiscoverySpi;
import org.apache.ignite.spi.discovery.tcp.ipfinder.vm.TcpDiscoveryVmIpFinder;

public final class IgniteNodes {
  private IgniteNodes() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Throwable t) {
      // Ignite's threads are not daemons: without the halt a failed start
      // would leave a live JVM that never becomes ready.
      t.printStackTrace();
      fail("start failed: " + t);
    }
  }

  private static void run(String[] args) throws Exception {
    Map<String, String> opt = new HashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq <= 0) fail("argument '" + a + "' is not name=value");
      opt.put(a.substring(0, eq), a.substring(eq + 1));
    }
    Path dir = Path.of(need(opt, "dir")).toAbsolutePath();
    int node = Integer.parseInt(need(opt, "node"));
    int nodes = Integer.parseInt(need(opt, "nodes"));
    String[] disco = need(opt, "disco").split(",");
    if (disco.length != nodes || node < 0 || node >= nodes) fail("disco must list one port per node");
    int comm = Integer.parseInt(need(opt, "comm"));
    int thin = Integer.parseInt(need(opt, "thin"));
    String cacheName = opt.getOrDefault("cache", "usertable");
    int backups = Integer.parseInt(opt.getOrDefault("backups", nodes > 1 ? "1" : "0"));
    String atomicity = opt.getOrDefault("atomicity", "atomic");
    String writeSync = opt.getOrDefault("write_sync", "primary_sync");
    boolean persistence = opt.getOrDefault("persistence", "0").equals("1");
    long offheapMb = Long.parseLong(opt.getOrDefault("offheap_mb", "512"));
    int fieldCount = Integer.parseInt(opt.getOrDefault("fieldcount", "10"));
    String fieldPrefix = opt.getOrDefault("fieldprefix", "field");
    long timeoutMs = 1000L * Long.parseLong(opt.getOrDefault("timeout_s", "120"));

    CacheAtomicityMode mode;
    switch (atomicity) {
      case "atomic": mode = CacheAtomicityMode.ATOMIC; break;
      case "transactional": mode = CacheAtomicityMode.TRANSACTIONAL; break;
      default: fail("atomicity must be atomic or transactional, not '" + atomicity + "'"); return;
    }

    CacheWriteSynchronizationMode syncMode;
    switch (writeSync) {
      case "full_sync": syncMode = CacheWriteSynchronizationMode.FULL_SYNC; break;
      case "primary_sync": syncMode = CacheWriteSynchronizationMode.PRIMARY_SYNC; break;
      case "full_async": syncMode = CacheWriteSynchronizationMode.FULL_ASYNC; break;
      default: fail("write_sync must be full_sync, primary_sync or full_async, not '" + writeSync + "'"); return;
    }

    Path home = dir.resolve("node" + node);
    IgniteConfiguration cfg = new IgniteConfiguration();
    cfg.setIgniteInstanceName("storebench-node" + node);
    cfg.setConsistentId("storebench-node" + node);  // stable across restarts (persistence)
    cfg.setLocalHost("127.0.0.1");
    cfg.setWorkDirectory(home.resolve("work").toString());
    cfg.setMetricsLogFrequency(0);
    cfg.setPeerClassLoadingEnabled(false);
    cfg.setConnectorConfiguration(null);  // no binary REST listener

    TcpDiscoveryVmIpFinder finder = new TcpDiscoveryVmIpFinder();
    List<String> addrs = new ArrayList<>();
    for (String p : disco) addrs.add("127.0.0.1:" + p.trim());
    finder.setAddresses(addrs);
    TcpDiscoverySpi discovery = new TcpDiscoverySpi();
    discovery.setLocalAddress("127.0.0.1");
    discovery.setLocalPort(Integer.parseInt(disco[node].trim()));
    discovery.setLocalPortRange(0);
    discovery.setIpFinder(finder);
    cfg.setDiscoverySpi(discovery);

    TcpCommunicationSpi communication = new TcpCommunicationSpi();
    communication.setLocalAddress("127.0.0.1");
    communication.setLocalPort(comm);
    communication.setLocalPortRange(0);
    cfg.setCommunicationSpi(communication);

    ClientConnectorConfiguration connector = new ClientConnectorConfiguration();
    connector.setHost("127.0.0.1");
    connector.setPort(thin);
    connector.setPortRange(0);
    cfg.setClientConnectorConfiguration(connector);

    DataRegionConfiguration region = new DataRegionConfiguration();
    region.setName("default");
    region.setInitialSize(Math.min(offheapMb, 64L) << 20);
    region.setMaxSize(offheapMb << 20);
    region.setPersistenceEnabled(persistence);
    DataStorageConfiguration storage = new DataStorageConfiguration();
    storage.setDefaultDataRegionConfiguration(region);
    if (persistence) {
      storage.setStoragePath(home.resolve("db").toString());
      storage.setWalPath(home.resolve("wal").toString());
      storage.setWalArchivePath(home.resolve("wal-archive").toString());
    }
    cfg.setDataStorageConfiguration(storage);

    Ignite ignite = Ignition.start(cfg);
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (ignite.cluster().forServers().nodes().size() < nodes) {
      if (System.currentTimeMillis() > deadline) fail("only " + ignite.cluster().forServers().nodes().size() + " of " + nodes + " nodes joined");
      Thread.sleep(50);
    }
    if (node == 0) {
      if (persistence && ignite.cluster().state() != ClusterState.ACTIVE) ignite.cluster().state(ClusterState.ACTIVE);
      CacheConfiguration<Object, Object> cc = new CacheConfiguration<>(cacheName);
      cc.setBackups(backups);
      cc.setAtomicityMode(mode);
      cc.setWriteSynchronizationMode(syncMode);
      if (fieldCount > 0) {
        QueryEntity entity = new QueryEntity("java.lang.String", cacheName);
        entity.setTableName(cacheName);
        entity.setKeyFieldName("ycsb_key");
        LinkedHashMap<String, String> fields = new LinkedHashMap<>();
        fields.put("ycsb_key", "java.lang.String");
        for (int i = 0; i < fieldCount; i++) fields.put(fieldPrefix + i, "java.lang.String");
        entity.setFields(fields);
        cc.setQueryEntities(List.of(entity));
      }
      ignite.getOrCreateCache(cc);
    }
    // With persistence the cluster starts inactive until node 0 activates it.
    while (ignite.cluster().state() != ClusterState.ACTIVE || !ignite.cacheNames().contains(cacheName)) {
      if (System.currentTimeMillis() > deadline) fail("cache " + cacheName + " was not created");
      Thread.sleep(50);
    }
    System.out.println("storebench-ignite ready node=" + node + " servers=" + ignite.cluster().forServers().nodes().size()
        + " cache=" + cacheName + " thin=127.0.0.1:" + thin);
    System.out.flush();
    new CountDownLatch(1).await();  // until TERM: Ignite's shutdown hook stops the node
  }

  private static String need(Map<String, String> opt, String name) {
    String v = opt.get(name);
    if (v == null) fail("missing " + name + "=...");
    return v;
  }

  private static void fail(String msg) {
    System.err.println("IgniteNodes: " + msg);
    System.out.flush();
    Runtime.getRuntime().halt(2);
  }
}
