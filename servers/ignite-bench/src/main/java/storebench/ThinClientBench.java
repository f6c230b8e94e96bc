// storebench's first Java peer in bench/ignite.sh: Ignite's own Java thin
// client (IgniteClient), what a Java user of the thin protocol writes, with
// partition awareness on (2.17's default, set explicitly): each key goes to
// its primary node. One IgniteClient serves every thread. The harness and
// the RESULT line: IgniteBench.
//   java ... storebench.ThinClientBench hosts=127.0.0.1:P1[,127.0.0.1:P2] op=get threads=8 ...
// Options: hosts (the nodes' thin-client addresses, as scripts/servers/ignite.sh
// prints them in ignite.hosts), partition_awareness (true|false, default true),
// and IgniteBench's.
package storebench;

import java.util.Map;

import org.apache.ignite.IgniteBinary;
import org.apache.ignite.Ignition;
import org.apache.ignite.binary.BinaryObject;
import org.apache.ignite.client.ClientCache;
import org.apache.ignite.client.IgniteClient;
import org.apache.ignite.configuration.ClientConfiguration;

public final class ThinClientBench {
  private ThinClientBench() {}

  public static void main(String[] args) {
    IgniteBench.main("java-thin", ThinClientBench::open, args);
  }

  private static IgniteBench.Store open(IgniteBench.Options opt) {
    String[] hosts = opt.get("hosts", null).split(",");
    boolean aware = opt.getBool("partition_awareness", true);
    String cacheName = opt.get("cache", "usertable");
    IgniteClient client = Ignition.startClient(new ClientConfiguration()
        .setAddresses(hosts)
        .setPartitionAwarenessEnabled(aware));
    ClientCache<String, BinaryObject> cache = client.<String, Object>cache(cacheName).withKeepBinary();
    return new IgniteBench.Store() {
      @Override public IgniteBinary binary() { return client.binary(); }
      @Override public BinaryObject get(String key) { return cache.get(key); }
      @Override public void put(String key, BinaryObject value) { cache.put(key, value); }
      @Override public void putAll(Map<String, BinaryObject> batch) { cache.putAll(batch); }
      @Override public void close() { client.close(); }
    };
  }
}
