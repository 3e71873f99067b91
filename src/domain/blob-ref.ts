/**
 * Where a blob lives and which blob it is. A ref is the store's location followed by the
 * content address, so any worker (or operator) can tell which store holds it:
 *   s3://bucket/prefix/sha256/<hex>     file:///var/lib/wsmigrate/blobs/sha256/<hex>
 * A bare `sha256:<hex>` (refs written before stores had locations) means "the configured store".
 */
export interface ParsedBlobRef {
  sha256: string;
  /** Normalized store location (`s3://bucket/prefix` or `file:///dir`); undefined for a bare ref. */
  location?: string;
}

const BARE_REF = /^sha256:([0-9a-f]{64})$/;
const LOCATED_REF = /^((?:s3|file):\/\/.+?)\/sha256\/([0-9a-f]{64})$/;

export class BlobRefError extends Error {
  constructor(ref: string) {
    super(
      `not a blob ref: ${JSON.stringify(ref.slice(0, 120))}; expected 'sha256:' followed by 64 lowercase hex characters, ` +
        "or a store location followed by '/sha256/<hex>' (e.g. s3://bucket/prefix/sha256/<hex>)",
    );
    this.name = 'BlobRefError';
  }
}

export function parseBlobRef(ref: string): ParsedBlobRef {
  const bare = BARE_REF.exec(ref);
  if (bare) return { sha256: bare[1] };
  const located = LOCATED_REF.exec(ref);
  if (!located) throw new BlobRefError(ref);
  return { sha256: located[2], location: normalizeLocation(located[1], ref) };
}

export function formatBlobRef(location: string, sha256: string): string {
  return `${location}/sha256/${sha256}`;
}

/** The object key (S3) or relative path (file) of a blob inside its store. */
export function blobKey(sha256: string): string {
  return `sha256/${sha256}`;
}

export type StoreLocation = { kind: 's3'; bucket: string; prefix: string } | { kind: 'file'; dir: string };

/** Parses `s3://bucket[/prefix]` or `file:///abs/dir`; the message names `what` (a variable or a ref). */
export function parseLocation(url: string, what = 'WSMIGRATE_BLOB_URL'): StoreLocation {
  const s3 = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (s3) {
    const bucket = s3[1];
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      throw new Error(`${what}: ${JSON.stringify(bucket)} is not an S3 bucket name (3-63 lowercase letters, digits, dots, hyphens); e.g. s3://wsmigrate-backups/prod`);
    }
    const prefix = (s3[2] ?? '').replace(/^\/+|\/+$/g, '');
    if (prefix.split('/').some((part) => part === '..' || part === '.')) {
      throw new Error(`${what}: the prefix ${JSON.stringify(prefix)} must not contain '.' or '..' segments`);
    }
    return { kind: 's3', bucket, prefix };
  }
  if (url.startsWith('file://')) {
    const dir = decodeURIComponent(url.slice('file://'.length)).replace(/\/+$/, '');
    if (!dir.startsWith('/')) throw new Error(`${what}: a file store needs an absolute path, e.g. file:///var/lib/wsmigrate/blobs (got ${JSON.stringify(url)})`);
    return { kind: 'file', dir };
  }
  throw new Error(`${what} must be s3://bucket/prefix or file:///absolute/dir (got ${JSON.stringify(url.slice(0, 80))})`);
}

export function formatLocation(loc: StoreLocation): string {
  return loc.kind === 's3' ? `s3://${loc.bucket}${loc.prefix ? `/${loc.prefix}` : ''}` : `file://${loc.dir}`;
}

function normalizeLocation(url: string, ref: string): string {
  try {
    return formatLocation(parseLocation(url, 'blob ref'));
  } catch {
    throw new BlobRefError(ref);
  }
}

/** A stored blob: where it lives and its content address (never its bytes). */
export interface BlobRef {
  /** Where the blob lives and its content address, e.g. `s3://bucket/prefix/sha256/<hex>`. */
  ref: string;
  sha256: string;
  size: number;
  encrypted: boolean;
}
