// Reads an HdrHistogram interval log with HdrHistogram's own reader
// (org.HdrHistogram.HistogramLogReader, Debian's libhdrhistogram-java) and
// prints, per tag, the figures of all its intervals added together:
//   TAG lines=N count=C p50=V p99=V max=V min=V
// (values as recorded, i.e. nanoseconds for storebench's --hdr-log). Used by
// tests/cli/hdr_log_test.cc to check that our log is what HdrHistogram reads.
//
//   javac -cp /usr/share/java/hdrhistogram.jar -d OUT tests/java/HdrLogCheck.java
//   java -cp /usr/share/java/hdrhistogram.jar:OUT HdrLogCheck LOGFILE
import java.io.File;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

public class HdrLogCheck {
  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: HdrLogCheck LOGFILE");
      System.exit(2);
    }
    HistogramLogReader reader = new HistogramLogReader(new File(args[0]));
    Map<String, Histogram> totals = new TreeMap<>();
    Map<String, Integer> lines = new TreeMap<>();
    EncodableHistogram e;
    while ((e = reader.nextIntervalHistogram()) != null) {
      if (!(e instanceof Histogram)) throw new IllegalStateException("not an integer histogram: " + e.getClass());
      Histogram h = (Histogram) e;
      String tag = h.getTag() == null ? "" : h.getTag();
      totals.computeIfAbsent(tag, t -> new Histogram(3)).add(h);
      lines.merge(tag, 1, Integer::sum);
    }
    System.out.println("startTimeSec=" + reader.getStartTimeSec());
    for (Map.Entry<String, Histogram> t : totals.entrySet()) {
      Histogram h = t.getValue();
      System.out.println(t.getKey() + " lines=" + lines.get(t.getKey()) + " count=" + h.getTotalCount() +
          " p50=" + h.getValueAtPercentile(50) + " p99=" + h.getValueAtPercentile(99) +
          " max=" + h.getMaxValue() + " min=" + h.getMinValue());
    }
  }
}
