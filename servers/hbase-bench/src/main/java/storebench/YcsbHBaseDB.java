package storebench;

// A YCSB database layer over HBase's Java client (hbase-client, HBase's native
// RPC), the Java peer of storebench's hbase binding in bench/hbase.sh, run by
// YCSB's own Client:
//   java -cp ... site.ycsb.Client -t -db storebench.YcsbHBaseDB -P workloads/workloada \
//     -p hbase.zookeeper.quorum=127.0.0.1:ZK -p columnfamily=family ...
//
// It follows YCSB's hbase2 binding (brianfrankcooper/YCSB,
// hbase2/src/main/java/site/ycsb/db/hbase2/HBaseClient2.java) in what reaches
// the server, written anew here:
//   - one row per key; each field a column of the family `columnfamily`
//     (or `hbase.columnfamily`, which scripts/servers/hbase.sh prints), its
//     qualifier the field name;
//   - read: a Get of the whole family or of the chosen columns, NOT_FOUND when
//     the row has no cell;
//   - scan: a Scan from the start row with caching = count and a PageFilter
//     (hbase.usepagefilter, default true), stopping after count rows;
//   - update and insert: one Put of the given columns (no check that the row
//     exists), with `durability` (a Durability name; default USE_DEFAULT);
//   - delete: a Delete of the row, with `durability`;
//   - clientbuffering=true: puts and deletes go through a BufferedMutator of
//     `writebuffersize` bytes (default 12 MiB) and answer OK when buffered;
//     cleanup flushes and measures the flush as UPDATE (as CLEANUP without
//     buffering), as the hbase2 binding does.
// One Connection for the whole process, shared by every client thread (it is
// thread-safe and multiplexes calls per region server, as in the hbase2
// binding); each thread has its own Table and BufferedMutator. The table must
// exist: init fails otherwise.
//
// Differences from the hbase2 binding: the connection settings come from the
// YCSB properties too (any property named hbase.* or zookeeper.* is copied
// into the client's Configuration, on top of hbase-site.xml if one is on the
// classpath), so that no hbase-site.xml has to be written for a server on
// ephemeral ports; no Kerberos, no debug output, no scan value filtering.
//
// Thread safety: YCSB makes one instance per client thread; the instance is
// used by that thread only. The shared connection is guarded by LOCK.

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.util.Bytes;

import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

public final class YcsbHBaseDB extends DB {
  private static final Object LOCK = new Object();
  private static Connection connection; // guarded by LOCK
  private static int users;             // guarded by LOCK: instances between init and cleanup

  private byte[] family;
  private Durability durability = Durability.USE_DEFAULT;
  private boolean buffering;
  private long writeBufferSize = 12L * 1024 * 1024;
  private boolean pageFilter = true;

  private String tableName;       // the table `table` and `mutator` are open on
  private Table table;
  private BufferedMutator mutator; // only with clientbuffering

  @Override
  public void init() throws DBException {
    Properties p = getProperties();
    String cf = p.getProperty("columnfamily", p.getProperty("hbase.columnfamily"));
    if (cf == null || cf.isEmpty()) {
      throw new DBException("no column family: give -p columnfamily=NAME");
    }
    family = Bytes.toBytes(cf);
    buffering = Boolean.parseBoolean(p.getProperty("clientbuffering", "false"));
    writeBufferSize = Long.parseLong(p.getProperty("writebuffersize", Long.toString(writeBufferSize)));
    durability = Durability.valueOf(p.getProperty("durability", "USE_DEFAULT"));
    pageFilter = Boolean.parseBoolean(p.getProperty("hbase.usepagefilter", "true"));

    String name = p.getProperty(CoreWorkload.TABLENAME_PROPERTY, CoreWorkload.TABLENAME_PROPERTY_DEFAULT);
    synchronized (LOCK) {
      if (connection == null) {
        Configuration conf = HBaseConfiguration.create();
        for (String k : p.stringPropertyNames()) {
          if ((k.startsWith("hbase.") || k.startsWith("zookeeper.")) && !k.equals("hbase.columnfamily")) {
            conf.set(k, p.getProperty(k));
          }
        }
        try {
          Connection c = ConnectionFactory.createConnection(conf);
          try (Admin admin = c.getAdmin()) {
            if (!admin.tableExists(TableName.valueOf(name))) {
              c.close();
              throw new DBException("table " + name + " does not exist");
            }
          }
          connection = c;
        } catch (IOException e) {
          throw new DBException(e);
        }
      }
      users++;
    }
  }

  @Override
  public void cleanup() throws DBException {
    long start = System.nanoTime();
    IOException failed = null;
    try {
      if (mutator != null) mutator.close(); // flushes what is buffered
      if (table != null) table.close();
    } catch (IOException e) {
      failed = e;
    }
    Measurements.getMeasurements().measure(buffering ? "UPDATE" : "CLEANUP",
        (int) ((System.nanoTime() - start) / 1000));
    synchronized (LOCK) {
      if (--users == 0 && connection != null) {
        try {
          connection.close();
        } catch (IOException e) {
          if (failed == null) failed = e;
        }
        connection = null;
      }
    }
    if (failed != null) throw new DBException(failed);
  }

  // Opens the Table (and BufferedMutator) of `name` unless they are open already.
  private boolean use(String name) {
    if (name.equals(tableName)) return true;
    try {
      if (mutator != null) mutator.close();
      if (table != null) table.close();
      mutator = null;
      table = null;
      tableName = null;
      TableName t = TableName.valueOf(name);
      table = connection.getTable(t);
      if (buffering) {
        mutator = connection.getBufferedMutator(new BufferedMutatorParams(t).writeBufferSize(writeBufferSize));
      }
      tableName = name;
      return true;
    } catch (IOException e) {
      System.err.println("YcsbHBaseDB: cannot open table " + name + ": " + e);
      return false;
    }
  }

  private static void fields(Result r, Map<String, ByteIterator> out) {
    for (Cell c : r.rawCells()) {
      out.put(Bytes.toString(CellUtil.cloneQualifier(c)), new ByteArrayByteIterator(CellUtil.cloneValue(c)));
    }
  }

  @Override
  public Status read(String name, String key, Set<String> wanted, Map<String, ByteIterator> result) {
    if (!use(name)) return Status.ERROR;
    Get g = new Get(Bytes.toBytes(key));
    if (wanted == null) {
      g.addFamily(family);
    } else {
      for (String f : wanted) g.addColumn(family, Bytes.toBytes(f));
    }
    Result r;
    try {
      r = table.get(g);
    } catch (IOException e) {
      return Status.ERROR;
    }
    if (r.isEmpty()) return Status.NOT_FOUND;
    fields(r, result);
    return Status.OK;
  }

  @Override
  public Status scan(String name, String startKey, int count, Set<String> wanted,
                     Vector<HashMap<String, ByteIterator>> result) {
    if (!use(name)) return Status.ERROR;
    Scan s = new Scan().withStartRow(Bytes.toBytes(startKey)).setCaching(count);
    if (pageFilter) s.setFilter(new PageFilter(count));
    if (wanted == null) {
      s.addFamily(family);
    } else {
      for (String f : wanted) s.addColumn(family, Bytes.toBytes(f));
    }
    try (ResultScanner scanner = table.getScanner(s)) {
      // A PageFilter limits rows per region, not overall: stop at count.
      for (Result r = scanner.next(); r != null && result.size() < count; r = scanner.next()) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        fields(r, row);
        result.add(row);
      }
    } catch (IOException e) {
      return Status.ERROR;
    }
    return Status.OK;
  }

  private Status mutate(Mutation m) {
    m.setDurability(durability);
    try {
      if (buffering) {
        mutator.mutate(m);
      } else if (m instanceof Put) {
        table.put((Put) m);
      } else {
        table.delete((Delete) m);
      }
    } catch (IOException e) {
      return Status.ERROR;
    }
    return Status.OK;
  }

  @Override
  public Status update(String name, String key, Map<String, ByteIterator> values) {
    if (!use(name)) return Status.ERROR;
    Put p = new Put(Bytes.toBytes(key));
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      p.addColumn(family, Bytes.toBytes(e.getKey()), e.getValue().toArray());
    }
    return mutate(p);
  }

  @Override
  public Status insert(String name, String key, Map<String, ByteIterator> values) {
    return update(name, key, values);
  }

  @Override
  public Status delete(String name, String key) {
    if (!use(name)) return Status.ERROR;
    return mutate(new Delete(Bytes.toBytes(key)));
  }
}
