package io.cdclake.spark;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.ql.exec.Description;
import org.apache.hadoop.hive.ql.exec.UDFArgumentException;
import org.apache.hadoop.hive.ql.metadata.HiveException;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDF;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.PrimitiveObjectInspectorFactory;
import org.apache.hadoop.hive.serde2.objectinspector.primitive.StringObjectInspector;

/**
 * Whether a file or folder exists at a location (a URI such as {@code file:/lake/db/t}, or a path),
 * as Hadoop's file system of its scheme sees it: true, false, or null when that file system cannot
 * answer (no file system for the scheme, no access, an unreachable store), so that a caller can
 * act as if it might exist. The dbt macro {@code cdc_clear_orphan_location} asks it before it
 * clears a table's location, so a first build pays one query for a location that holds nothing
 * (almost always) instead of the five statements of the clearing itself.
 *
 * <p>The file system is configured from the Hadoop configuration files on the class path, not
 * from the Spark session's {@code spark.hadoop.*} settings: a store that needs those answers null.
 */
@Description(
    name = "cdc_path_exists",
    value = "_FUNC_(location) - true when a file or folder exists there, false when not, null when"
        + " its file system cannot tell")
public final class PathExists extends GenericUDF {

  private transient StringObjectInspector location;
  private transient Configuration configuration;

  @Override
  public ObjectInspector initialize(ObjectInspector[] arguments) throws UDFArgumentException {
    location = Arguments.oneString(arguments, "cdc_path_exists", "a location");
    return PrimitiveObjectInspectorFactory.javaBooleanObjectInspector;
  }

  @Override
  public Object evaluate(DeferredObject[] arguments) throws HiveException {
    String where = Arguments.string(arguments[0], location);
    if (where == null) {
      return null;
    }
    if (configuration == null) {
      configuration = new Configuration();
    }
    return exists(where, configuration);
  }

  /** Whether {@code location} exists; null when its file system cannot tell. */
  static Boolean exists(String location, Configuration configuration) {
    if (location == null || location.isEmpty()) {
      return null;
    }
    try {
      Path path = new Path(location);
      return path.getFileSystem(configuration).exists(path);
    } catch (IOException | IllegalArgumentException | UnsupportedOperationException e) {
      return null;
    }
  }

  @Override
  public String getDisplayString(String[] children) {
    return "cdc_path_exists(" + String.join(", ", children) + ")";
  }
}
