// Public entry of the package: the typed helpers used by *.mac.ts definition files.
export {};
