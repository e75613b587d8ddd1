package io.cdclake.spark;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hive.ql.exec.Description;
import org.apache.hadoop.hive.ql.exec.UDFArgumentException;
import org.apache.hadoop.hive.ql.metadata.HiveException;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDF;
import org.apache.hadoop.hive.serde2.objectinspector.ListObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspectorFactory;
import org.apache.hadoop.hive.serde2.objectinspector.PrimitiveObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorFactory;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.StringObjectInspector;

/**
 * The row chains of a table without a key (the dbt macro {@code cdc_chain_row_images}): given
 * its changes in order, as three aligned arrays (op, and the identity of the before and after
 * image, e.g. a hash of the whole row), the position of the change that started each change's
 * row, or null for a change that cannot be chained.
 *
 * <ul>
 *   <li>An {@code insert} or {@code snapshot} starts a row: its own position. Identical live rows
 *       are counted, not merged: each is its own row.
 *   <li>An {@code update} continues the live row whose image equals its before image (the oldest
 *       such row when several are identical) and gives that row its after image.
 *   <li>A {@code delete} ends the live row whose image equals its before image.
 *   <li>An update or delete whose before image equals no live row cannot be chained: null, and
 *       the live rows are unchanged.
 * </ul>
 *
 * One pass, a queue of live rows per image: linear in the number of changes.
 */
@Description(
    name = "cdc_chain_row_images",
    value = "_FUNC_(ops, before_images, after_images) - per change, the position of the change"
        + " that started its row (null when its before image matches no live row)")
public final class RowImageChains extends GenericUDF {

  private transient ListObjectInspector[] lists;

  @Override
  public ObjectInspector initialize(ObjectInspector[] arguments) throws UDFArgumentException {
    if (arguments.length != 3) {
      throw new UDFArgumentException("cdc_chain_row_images takes three arrays of strings");
    }
    lists = new ListObjectInspector[3];
    for (int i = 0; i < 3; i++) {
      if (arguments[i].getCategory() != ObjectInspector.Category.LIST
          || !Arguments.isString(
              ((ListObjectInspector) arguments[i]).getListElementObjectInspector())) {
        throw new UDFArgumentException(
            "cdc_chain_row_images: argument " + (i + 1) + " must be an array of strings");
      }
      lists[i] = (ListObjectInspector) arguments[i];
    }
    return ObjectInspectorFactory.getStandardListObjectInspector(
        PrimitiveObjectInspectorFactory.javaIntObjectInspector);
  }

  @Override
  public Object evaluate(DeferredObject[] arguments) throws HiveException {
    List<List<String>> values = new ArrayList<>(3);
    for (int i = 0; i < 3; i++) {
      Object list = arguments[i].get();
      if (list == null) {
        return null;
      }
      values.add(strings(lists[i], list));
    }
    return chain(values.get(0), values.get(1), values.get(2));
  }

  private static List<String> strings(ListObjectInspector inspector, Object list) {
    StringObjectInspector element = (StringObjectInspector) inspector.getListElementObjectInspector();
    int length = inspector.getListLength(list);
    List<String> out = new ArrayList<>(length);
    for (int i = 0; i < length; i++) {
      Object value = inspector.getListElement(list, i);
      out.add(value == null ? null : element.getPrimitiveJavaObject(value));
    }
    return out;
  }

  @Override
  public String getDisplayString(String[] children) {
    return "cdc_chain_row_images(" + String.join(", ", children) + ")";
  }

  /** The chains: per change, the position of the change that started its row, or null. */
  public static List<Integer> chain(List<String> ops, List<String> befores, List<String> afters) {
    int count = ops.size();
    if (befores.size() != count || afters.size() != count) {
      throw new IllegalArgumentException(
          "cdc_chain_row_images: the three arrays differ in length ("
              + count + ", " + befores.size() + ", " + afters.size() + ")");
    }
    Map<String, ArrayDeque<Integer>> liveRows = new HashMap<>();
    List<Integer> starts = new ArrayList<>(count);
    for (int position = 0; position < count; position++) {
      String op = ops.get(position);
      Integer start;
      if ("insert".equals(op) || "snapshot".equals(op)) {
        start = afters.get(position) == null ? null : position;
      } else if ("delete".equals(op) || ("update".equals(op) && afters.get(position) != null)) {
        start = take(liveRows, befores.get(position));
      } else {
        start = null;
      }
      if (start != null && !"delete".equals(op)) {
        liveRows.computeIfAbsent(afters.get(position), image -> new ArrayDeque<>()).addLast(start);
      }
      starts.add(start);
    }
    return starts;
  }

  /** Ends the oldest live row with this image: its start, or null when none is live. */
  private static Integer take(Map<String, ArrayDeque<Integer>> liveRows, String image) {
    if (image == null) {
      return null;
    }
    ArrayDeque<Integer> rows = liveRows.get(image);
    if (rows == null) {
      return null;
    }
    Integer start = rows.pollFirst();
    if (rows.isEmpty()) {
      liveRows.remove(image);
    }
    return start;
  }
}
