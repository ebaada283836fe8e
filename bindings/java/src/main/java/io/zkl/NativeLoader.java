package io.zkl;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads the JNI library ({@code libzkljni.so}, which links {@code libzkl.so.1}).
 *
 * <p>Order: (1) the file named by the system property {@code zkl.jni.library}
 * (absolute path); (2) {@code zkljni} on {@code java.library.path}; (3) the copy
 * packaged in the jar at {@code io/zkl/native/<os>-<arch>/libzkljni.so},
 * extracted to a temporary file that is deleted when the JVM exits.
 * {@code libzkl.so.1} itself is found by the dynamic linker (the build records
 * libzkl's directory as RUNPATH; otherwise LD_LIBRARY_PATH or ldconfig).
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
    String resource = "/io/zkl/native/" + platform() + "/libzkljni.so";
    try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
      if (in == null) {
        UnsatisfiedLinkError err = new UnsatisfiedLinkError(
            "zkl: libzkljni not on java.library.path and no packaged " + resource);
        err.addSuppressed(fromPath);
        throw err;
      }
      Path tmp = Files.createTempFile("libzkljni", ".so");
      tmp.toFile().deleteOnExit();
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      System.load(tmp.toAbsolutePath().toString());
      loaded = true;
    } catch (IOException e) {
      UnsatisfiedLinkError err = new UnsatisfiedLinkError("zkl: cannot extract " + resource + ": " + e);
      err.initCause(e);
      throw err;
    }
  }

  static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) os = "linux";
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (arch.equals("x86_64")) arch = "amd64";
    return os + "-" + arch;
  }
}
