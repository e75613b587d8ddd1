package io.cdclake.spark;

import java.util.Arrays;
import org.apache.hadoop.hive.ql.exec.Description;
import org.apache.hadoop.hive.ql.exec.UDFArgumentException;
import org.apache.hadoop.hive.ql.metadata.HiveException;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDF;
import org.apache.hadoop.hive.serde2.objectinspector.ConstantObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.PrimitiveObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorFactory;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.StringObjectInspector;

/**
 * The detector tokens of a message, as {@code cdc-lake land --format auto} reads them, in one
 * linear scan instead of a regular expression: the same string, character for character.
 *
 * <p>{@code cdc_detector_tokens(text, names)}, {@code names} a constant comma-separated list of
 * the detector names, gives {@code ,t1,t2,...,}: for every double quote of the text, in order,
 * the name that follows it and is closed by a double quote, with that closing quote appended when
 * optional whitespace and a colon follow it. It is python/cdc_lake/formats.py's
 * {@code detector_tokens_sql}, which runs
 * <pre>
 * concat(',', array_join(regexp_extract_all(text, '"(?=[first letters])(?=((?:n1|n2|...)(?:"(?=\s*:)|(?=")))', 1), ','), ',')
 * </pre>
 * Each match of that expression is a single double quote (the rest is look-ahead), so every
 * double quote of the text is a candidate, escaped or not; a name is followed by a double quote,
 * so at most one name matches at a quote. {@code \s} is Java's: space, tab, newline, vertical
 * tab, form feed, carriage return. A null text gives null.
 */
@Description(
    name = "cdc_detector_tokens",
    value = "_FUNC_(text, names) - ,name,name\", ...: the detector names found in double quotes")
public final class DetectorTokens extends GenericUDF {

  private transient StringObjectInspector input;
  private transient String[][] namesByFirstChar; // names (as strings) by their first character

  @Override
  public ObjectInspector initialize(ObjectInspector[] arguments) throws UDFArgumentException {
    if (arguments.length != 2
        || !Arguments.isString(arguments[0])
        || !Arguments.isString(arguments[1])
        || !(arguments[1] instanceof ConstantObjectInspector)) {
      throw new UDFArgumentException(
          "cdc_detector_tokens takes a string and a constant string of comma-separated names");
    }
    input = (StringObjectInspector) arguments[0];
    Object names = ((ConstantObjectInspector) arguments[1]).getWritableConstantValue();
    namesByFirstChar = index(names == null ? "" : names.toString());
    return PrimitiveObjectInspectorFactory.javaStringObjectInspector;
  }

  @Override
  public Object evaluate(DeferredObject[] arguments) throws HiveException {
    String text = Arguments.string(arguments[0], input);
    return text == null ? null : tokens(text, namesByFirstChar);
  }

  @Override
  public String getDisplayString(String[] children) {
    return "cdc_detector_tokens(" + children[0] + ", " + children[1] + ")";
  }

  /** The names of a comma-separated list, grouped by first character (index: the char, < 128). */
  public static String[][] index(String names) {
    String[][] byFirst = new String[128][];
    for (String name : names.split(",")) {
      if (name.isEmpty()) {
        continue;
      }
      char first = name.charAt(0);
      if (first >= 128) {
        throw new IllegalArgumentException("detector names start with an ASCII character: " + name);
      }
      String[] known = byFirst[first];
      String[] more = known == null ? new String[1] : Arrays.copyOf(known, known.length + 1);
      more[more.length - 1] = name;
      byFirst[first] = more;
    }
    return byFirst;
  }

  /** The tokens of `text`, `,t1,t2,`, or `,,` when there is none. */
  public static String tokens(String text, String[][] namesByFirstChar) {
    StringBuilder out = new StringBuilder(24).append(',');
    boolean any = false;
    int n = text.length();
    for (int quote = text.indexOf('"'); quote >= 0; quote = text.indexOf('"', quote + 1)) {
      int start = quote + 1;
      if (start >= n) {
        break;
      }
      char first = text.charAt(start);
      String[] candidates = first < 128 ? namesByFirstChar[first] : null;
      if (candidates == null) {
        continue;
      }
      for (String name : candidates) {
        int close = start + name.length();
        if (close < n && text.charAt(close) == '"' && text.startsWith(name, start)) {
          if (any) {
            out.append(',');
          }
          out.append(name);
          if (colonFollows(text, close + 1)) {
            out.append('"');
          }
          any = true;
          break; // a name closed by a quote: no other name can be (none is another's prefix + quote)
        }
      }
    }
    return out.append(',').toString();
  }

  /** Whether optional whitespace (Java's \s) and then a colon start at `i`. */
  private static boolean colonFollows(String text, int i) {
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
      if (c == ':') {
        return true;
      }
      if (c != ' ' && c != '\t' && c != '\n' && c != '\u000B' && c != '\f' && c != '\r') {
        return false;
      }
      i++;
    }
    return false;
  }
}
