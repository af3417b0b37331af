/**
 * The absolute path of the session-starter binary for this platform: the
 * file that SESSION_STARTER_BINARY names, or the one in the platform's
 * package (@session-starter/<platform>-<arch>).
 *
 * Throws an Error whose code is ERR_SESSION_STARTER_UNSUPPORTED_PLATFORM
 * (no package for this platform), ERR_SESSION_STARTER_NOT_INSTALLED (the
 * platform's package is missing) or ERR_SESSION_STARTER_BINARY_MISSING (the
 * file is not there), with a message that names the platform.
 */
export function binaryPath(): string;

/**
 * The name of the package that holds the binary for a platform and an
 * architecture as Node names them (process.platform, process.arch; the
 * defaults), or undefined where there is none.
 */
export function packageName(platform?: string, arch?: string): string | undefined;
