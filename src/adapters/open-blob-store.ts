import { parseBlobRef, parseLocation, formatLocation } from './blob-ref';
import { createFileBlobStore, type BlobStore } from './blob-store';
import { createS3BlobStore } from './s3-blob-store';

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
  return createS3BlobStore({
    bucket: loc.bucket,
    prefix: loc.prefix,
    endpoint: s.s3Endpoint,
    region: s.s3Region,
    forcePathStyle: s.s3ForcePathStyle,
    encryptionKey: s.encryptionKey,
    now: s.now,
  });
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
    remove: (hex) => home.remove(hex),
  };
}
