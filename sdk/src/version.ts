/** This package's version (package.json's; a test keeps them equal), sent in User-Agent. */
export const SDK_VERSION = "1.0.0";
