// storebench's second Java peer in bench/ignite.sh: a client node (the
// thick client: IgniteConfiguration.setClientMode(true)), which joins the
// servers' topology and sends each key to its primary over Ignite's
// communication SPI; what Yardstick and YCSB's ignite binding use. One node
// serves every thread. The harness and the RESULT line: IgniteBench.
//   java <the --add-opens flags of scripts/servers/ignite.sh> ... storebench.ClientNodeBench \
//     disco=P1[,P2] op=get threads=8 ...
// Its discovery is the servers' own (storebench.IgniteNodes): 127.0.0.1, a
// static IP finder with the servers' discovery ports, no multicast. Its
// communication listener is on 127.0.0.1 too (the servers connect back to a
// client node); it has no thin-client connector and no REST connector, so it
// listens on nothing beyond loopback.
// Options: disco (the servers' discovery ports, comma-separated: "disco=" in
// the DIR/ports file of scripts/servers/ignite.sh), comm (its communication
// port; default 0: the first free one from 47100), workdir (Ignite's work
// directory; default a temporary one), and IgniteBench's.
package storebench;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteBinary;
import org.apache.ignite.IgniteCache;
import org.apache.ignite.Ignition;
import org.apache.ignite.binary.BinaryObject;
import org.apache.ignite.configuration.IgniteConfiguration;
import org.apache.ignite.spi.communication.tcp.TcpCommunicationSpi;
import org.apache.ignite.spi.discovery.tcp.TcpDiscoverySpi;
import org.apache.ignite.spi.discovery.tcp.ipfinder.vm.TcpDiscoveryVmIpFinder;

public final class ClientNodeBench {
  private ClientNodeBench() {}

  public static void main(String[] args) {
    IgniteBench.main("java-client-node", ClientNodeBench::open, args);
  }

  private static IgniteBench.Store open(IgniteBench.Options opt) throws Exception {
    String[] disco = opt.get("disco", null).split(",");
    int comm = (int) opt.getLong("comm", 0, 0);
    String workDir = opt.get("workdir", "");
    if (workDir.isEmpty()) workDir = Files.createTempDirectory("storebench-client-node").toString();
    String cacheName = opt.get("cache", "usertable");

    IgniteConfiguration cfg = new IgniteConfiguration();
    cfg.setIgniteInstanceName("storebench-bench-client");
    cfg.setClientMode(true);
    cfg.setLocalHost("127.0.0.1");
    cfg.setWorkDirectory(workDir);
    cfg.setMetricsLogFrequency(0);
    cfg.setPeerClassLoadingEnabled(false);  // as the servers: Ignite checks that all nodes agree
    cfg.setConnectorConfiguration(null);  // no binary REST listener
    cfg.setClientConnectorConfiguration(null);  // no thin-client listener on this node

    TcpDiscoveryVmIpFinder finder = new TcpDiscoveryVmIpFinder();
    List<String> addrs = new ArrayList<>();
    for (String p : disco) addrs.add("127.0.0.1:" + p.trim());
    finder.setAddresses(addrs);
    TcpDiscoverySpi discovery = new TcpDiscoverySpi();
    discovery.setLocalAddress("127.0.0.1");
    discovery.setIpFinder(finder);
    cfg.setDiscoverySpi(discovery);

    TcpCommunicationSpi communication = new TcpCommunicationSpi();
    communication.setLocalAddress("127.0.0.1");
    if (comm > 0) {
      communication.setLocalPort(comm);
      communication.setLocalPortRange(0);
    }
    cfg.setCommunicationSpi(communication);

    Ignite ignite = Ignition.start(cfg);
    IgniteCache<String, Object> plain = ignite.cache(cacheName);
    if (plain == null) {
      ignite.close();
      throw new IllegalStateException("no cache " + cacheName + " on the servers");
    }
    IgniteCache<String, BinaryObject> cache = plain.withKeepBinary();
    return new IgniteBench.Store() {
      @Override public IgniteBinary binary() { return ignite.binary(); }
      @Override public BinaryObject get(String key) { return cache.get(key); }
      @Override public void put(String key, BinaryObject value) { cache.put(key, value); }
      @Override public void putAll(Map<String, BinaryObject> batch) { cache.putAll(batch); }
      @Override public void close() { ignite.close(); }
    };
  }
}
