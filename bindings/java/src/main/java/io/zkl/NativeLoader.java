package io.zkl;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads the JNI library ({@code libzkljni.so}, which links {@code libzkl.so.1}).
 *
 * <p>Order: (1) the file named by the system property {@code zkl.jni.library}
 * (absolute path); (2) {@code zkljni} on {@code java.library.path}; (3) the copy
 * packaged in the jar under {@code io/zkl/native/<os>-<arch>/}.
 *
 * <p>For (3), a jar built for distribution ({@code packaging/java/build.sh})
 * also carries {@code libzkl.so.1} and the abseil libraries it needs, every
 * one with the run path {@code $ORIGIN}, and a file {@code libraries} naming
 * them in load order (dependencies first, {@code libzkljni.so} last). They
 * are extracted under their own names into one fresh temporary directory
 * (deleted when the JVM exits) and loaded in that order, so nothing is taken
 * from the system but libc, the C++ runtime, OpenSSL 3 and Cyrus SASL. A jar
 * from a development build has only {@code libzkljni.so}, whose run path
 * names the directory of the libzkl it was built against.
 */
final class NativeLoader {
  private static boolean loaded;

  private NativeLoader() {}

  static synchronized void load() {
    if (loaded) return;
    String explicit = System.getProperty("zkl.jni.library");
    if (explicit != null && !explicit.isEmpty()) {
      System.load(Path.of(explicit).toAbsolutePath().toString());
      loaded = true;
      return;
    }
    UnsatisfiedLinkError fromPath;
    try {
      System.loadLibrary("zkljni");
      loaded = true;
      return;
    } catch (UnsatisfiedLinkError e) {
      fromPath = e;
    }
    String dir = "/io/zkl/native/" + platform() + "/";
    try {
      List<String> names = packagedLibraries(dir);
      if (names.isEmpty()) {
        UnsatisfiedLinkError err = new UnsatisfiedLinkError(
            "zkl: libzkljni not on java.library.path and none packaged under " + dir);
        err.addSuppressed(fromPath);
        throw err;
      }
      Path tmp = Files.createTempDirectory("zkl-native-");
      tmp.toFile().deleteOnExit();  // registered first: deleted after its files
      List<Path> files = new ArrayList<>();
      for (String name : names) {
        Path file = tmp.resolve(name);
        try (InputStream in = NativeLoader.class.getResourceAsStream(dir + name)) {
          if (in == null) throw new IOException("missing " + dir + name);
          Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        file.toFile().deleteOnExit();
        files.add(file);
      }
      for (Path file : files) System.load(file.toAbsolutePath().toString());
      loaded = true;
    } catch (IOException e) {
      UnsatisfiedLinkError err = new UnsatisfiedLinkError("zkl: cannot extract " + dir + ": " + e);
      err.initCause(e);
      throw err;
    }
  }

  /** The packaged libraries in load order; empty if there are none. */
  private static List<String> packagedLibraries(String dir) throws IOException {
    List<String> names = new ArrayList<>();
    try (InputStream in = NativeLoader.class.getResourceAsStream(dir + "libraries")) {
      if (in == null) {
        if (NativeLoader.class.getResource(dir + "libzkljni.so") != null) names.add("libzkljni.so");
        return names;
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line; (line = r.readLine()) != null; ) {
        line = line.strip();
        if (line.isEmpty() || line.startsWith("#")) continue;
        if (line.contains("/")) throw new IOException("bad name in " + dir + "libraries: " + line);
        names.add(line);
      }
    }
    return names;
  }

  static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) os = "linux";
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (arch.equals("x86_64")) arch = "amd64";
    return os + "-" + arch;
  }
}
