package io.cdclake.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PathExists answers for local folders and files, as a path and as a file: URI. */
class PathExistsTest {

  private static final Configuration CONFIGURATION = new Configuration();

  @TempDir Path lake;

  @Test
  void aFolderOrFileThatExistsIsFound() throws IOException {
    Path table = Files.createDirectories(lake.resolve("db.db").resolve("t"));
    Path file = Files.writeString(table.resolve("part-0.parquet"), "x");
    assertEquals(true, PathExists.exists(table.toString(), CONFIGURATION));
    assertEquals(true, PathExists.exists(table.toUri().toString(), CONFIGURATION));
    assertEquals(true, PathExists.exists(file.toUri().toString(), CONFIGURATION));
    // an empty folder exists too
    assertEquals(true, PathExists.exists(Files.createDirectory(lake.resolve("empty")).toString(), CONFIGURATION));
  }

  @Test
  void aMissingLocationIsNotFound() {
    assertEquals(false, PathExists.exists(lake.resolve("never").toString(), CONFIGURATION));
    assertEquals(false, PathExists.exists(lake.resolve("never").toUri().toString(), CONFIGURATION));
  }

  @Test
  void aLocationNoFileSystemCanReadIsUnknown() {
    assertNull(PathExists.exists("nosuchscheme://host/lake/t", CONFIGURATION));
    assertNull(PathExists.exists("", CONFIGURATION));
    assertNull(PathExists.exists(null, CONFIGURATION));
  }
}
