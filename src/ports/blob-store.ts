import type { BlobRef } from '../domain/blob-ref';

/** Who wrote a blob and why; never any of its content. */
export interface BlobMeta {
  kind: string;
  label?: string;
  /** owner/name, for backups. */
  workspace?: string;
  workflowId?: string;
  runId?: string;
}

/** One put of a blob, kept beside it as a small JSON object: retention decides from these. */
export interface BlobRecord extends BlobMeta {
  ref: string;
  sha256: string;
  size: number;
  encrypted: boolean;
  storedAt: string;
}

export interface StoredBlob {
  ref: string;
  sha256: string;
  /** When the stored object was last written (file mtime, S3 LastModified). */
  lastModified: string;
  records: BlobRecord[];
}

export interface BlobStore {
  /** `s3://bucket/prefix` or `file:///dir`: the start of every ref this store writes. */
  readonly location: string;
  /** Content-addressed by the sha256 of the plaintext; the same bytes always give the same ref. */
  put(bytes: Buffer, meta?: BlobMeta): Promise<BlobRef>;
  /** The exact bytes that were put, checked against the ref's sha256. */
  get(ref: string): Promise<Buffer>;
  has(ref: string): Promise<boolean>;
  /** Every blob in the store with its records: a read of the whole store (retention, `backups list`). */
  list(): Promise<StoredBlob[]>;
  /** The records of one blob (none when it or they are absent): one blob's cost, not the store's. */
  records(sha256: string): Promise<BlobRecord[]>;
  /** Deletes a blob and its records (retention only; nothing in a migration deletes). */
  remove(sha256: string): Promise<void>;
}
