package io.cdclake.spark;

import org.apache.hadoop.hive.ql.exec.UDFArgumentException;
import org.apache.hadoop.hive.ql.metadata.HiveException;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDF;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorFactory;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.StringObjectInspector;

/**
 * A function of one string that gives a string, null for null: the Hive plumbing of ExactJson and
 * JsonError, which say only their name, what their argument is, and {@link #apply}.
 */
abstract class TextFunction extends GenericUDF {

  private transient StringObjectInspector input;

  /** The function's SQL name, for errors and plans. */
  abstract String name();

  /** What the argument is, for the error of a wrong call. */
  abstract String argument();

  /** The result for a text that is not null. */
  abstract String apply(String text);

  @Override
  public ObjectInspector initialize(ObjectInspector[] arguments) throws UDFArgumentException {
    input = Arguments.oneString(arguments, name(), argument());
    return PrimitiveObjectInspectorFactory.javaStringObjectInspector;
  }

  @Override
  public Object evaluate(DeferredObject[] arguments) throws HiveException {
    String text = Arguments.string(arguments[0], input);
    return text == null ? null : apply(text);
  }

  @Override
  public String getDisplayString(String[] children) {
    return name() + "(" + children[0] + ")";
  }
}
