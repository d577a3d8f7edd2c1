import { VERSION_FLOOR } from './group.js';

/** A release version `MAJOR.MINOR.PATCH`: no `v` prefix, no pre-release, no leading zeros. */
export const FULL_VERSION_PATTERN = '^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$';

/**
 * The same floor as `meetsVersionFloor`, spelled as an RE2 regular expression so the CRD's CEL rule
 * can enforce it at admission without integer parsing. A test checks the two agree.
 */
export const AT_LEAST_FLOOR_PATTERN =
  '^([1-9][0-9]+\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)|9\\.[1-9][0-9]*\\.(0|[1-9][0-9]*)|9\\.0\\.[1-9][0-9]*)$';

export interface Version {
  major: number;
  minor: number;
  patch: number;
}

const FULL = new RegExp(FULL_VERSION_PATTERN);

export function parseVersion(text: string): Version | undefined {
  const m = FULL.exec(text);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
}

export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

const FLOOR = parseVersion(VERSION_FLOOR) as Version;

export function meetsVersionFloor(v: Version): boolean {
  return compareVersions(v, FLOOR) >= 0;
}

export const formatVersion = (v: Version): string => `${v.major}.${v.minor}.${v.patch}`;
