import { parseBlobRef, parseLocation, formatLocation } from '../domain/blob-ref';
import { createFileBlobStore, type BlobStore } from './blob-store';

export interface BlobStoreSettings {
  /** `s3://bucket/prefix` or `file:///dir`. */
  url: string;
  s3Endpoint?: string;
  s3Region?: string;
  s3ForcePathStyle?: boolean;
  encryptionKey?: Buffer;
  now?: () => Date;
}

function openOne(location: string, s: BlobStoreSettings): BlobStore {
  const loc = parseLocation(location);
  if (loc.kind === 'file') return createFileBlobStore({ dir: loc.dir, encryptionKey: s.encryptionKey, now: s.now });
  if (s.encryptionKey && s.encryptionKey.length !== 32) {
    throw new Error(`blob store ${location}: the encryption key must be 32 bytes, got ${s.encryptionKey.length}; generate one with: openssl rand -hex 32`);
  }
  // The AWS SDK is heavy: load it on the first call, so commands that never touch S3 start fast.
  let store: Promise<BlobStore> | undefined;
  const s3 = () =>
    (store ??= import('./s3-blob-store').then(({ createS3BlobStore }) =>
      createS3BlobStore({
        bucket: loc.bucket,
        prefix: loc.prefix,
        endpoint: s.s3Endpoint,
        region: s.s3Region,
        forcePathStyle: s.s3ForcePathStyle,
        encryptionKey: s.encryptionKey,
        now: s.now,
      }),
    ));
  return {
    location: formatLocation(loc),
    put: async (bytes, meta) => (await s3()).put(bytes, meta),
    get: async (ref) => (await s3()).get(ref),
    has: async (ref) => (await s3()).has(ref),
    list: async () => (await s3()).list(),
    records: async (hex) => (await s3()).records(hex),
    remove: async (hex) => (await s3()).remove(hex),
  };
}

/**
 * The configured store, which writes every new blob, and also reads refs that name another S3
 * location (same endpoint and credentials): a ref says where its blob lives. A ref naming another
 * file directory is not opened: that directory is another machine's disk as far as we know, and the
 * home store's error says so. Bare `sha256:` refs (older backups) are read from the configured store.
 */
export function openBlobStore(settings: BlobStoreSettings): BlobStore {
  const home = openOne(formatLocation(parseLocation(settings.url)), settings);
  const others = new Map<string, BlobStore>();
  const storeFor = (ref: string): BlobStore => {
    const { location } = parseBlobRef(ref);
    if (location === undefined || location === home.location || !location.startsWith('s3://')) return home;
    let store = others.get(location);
    if (!store) {
      store = openOne(location, settings);
      others.set(location, store);
    }
    return store;
  };
  return {
    location: home.location,
    put: (bytes, meta) => home.put(bytes, meta),
    get: (ref) => storeFor(ref).get(ref),
    has: (ref) => storeFor(ref).has(ref),
    list: () => home.list(),
    records: (hex) => home.records(hex),
    remove: (hex) => home.remove(hex),
  };
}
