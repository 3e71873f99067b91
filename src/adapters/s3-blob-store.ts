import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { decodeBlob, encodeBlob } from './blob-codec';
import { blobKey, formatBlobRef, formatLocation, parseBlobRef } from '../domain/blob-ref';
import {
  BLOB_HEX,
  BlobNotFoundError,
  BlobStoreAccessError,
  BlobStoreError,
  BlobStoreUnavailableError,
  BlobUnreadableError,
  makeRecord,
  metaKey,
  ownHex,
  parseRecord,
  recordId,
  type BlobMeta,
  type BlobRecord,
  type BlobStore,
  type StoredBlob,
} from './blob-store';
import { sha256Hex } from './hash';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Key prefix without leading or trailing slash; '' for the bucket root. */
  prefix: string;
  /** For S3-compatible servers (MinIO, versitygw, Ceph…); unset means AWS. */
  endpoint?: string;
  region?: string;
  /** Path-style URLs (endpoint/bucket/key), which most non-AWS servers need. */
  forcePathStyle?: boolean;
  encryptionKey?: Buffer;
  now?: () => Date;
}

interface S3ErrorShape {
  name?: string;
  Code?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

const CREDENTIALS_HELP =
  'set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE, or give the worker an IAM role); wsmigrate reads S3 credentials only from the standard AWS credential chain';

/**
 * Content-addressed blobs in S3 or an S3-compatible server: `<prefix>/sha256/<hex>`, each put's
 * record in `<prefix>/meta/<hex>/<id>.json`. A put is a conditional create (If-None-Match: *)
 * after a read, so it never replaces a good copy; a get verifies the sha256. Our own AES-256-GCM
 * sits on top of whatever encryption the server does. Every worker pointed at the same bucket and
 * prefix reads every backup.
 */
export function createS3BlobStore(opts: S3BlobStoreOptions): BlobStore {
  const key = opts.encryptionKey;
  if (key && key.length !== 32) {
    throw new Error(`blob store s3://${opts.bucket}: the encryption key must be 32 bytes, got ${key.length}; generate one with: openssl rand -hex 32`);
  }
  const now = opts.now ?? (() => new Date());
  const location = formatLocation({ kind: 's3', bucket: opts.bucket, prefix: opts.prefix });
  const config: S3ClientConfig = {
    region: opts.region || process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1',
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    forcePathStyle: opts.forcePathStyle ?? false,
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    // Our own sha256 covers integrity; extra SDK checksums trip some S3-compatible servers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  const client = new S3Client(config);
  const server = opts.endpoint ? `the S3 endpoint ${opts.endpoint} (WSMIGRATE_S3_ENDPOINT)` : `AWS S3 (region ${config.region as string})`;
  const fullKey = (k: string) => (opts.prefix ? `${opts.prefix}/${k}` : k);
  const describe = (hex: string) => `blob ${formatBlobRef(location, hex)} (store ${location}, key ${fullKey(blobKey(hex))})`;

  /** Turns an SDK failure into one of ours, naming the store, the key and the variable to fix; never the SDK's raw text. */
  function translate(err: unknown, k: string, action: string): BlobStoreError {
    const e = err as S3ErrorShape;
    const code = e.name ?? e.Code ?? e.code ?? 'Error';
    const status = e.$metadata?.httpStatusCode;
    const where = `store ${location}, key ${k}`;
    if (code === 'CredentialsProviderError' || /credential/i.test(code)) {
      return new BlobStoreAccessError(`cannot ${action} (${where}): no S3 credentials found; ${CREDENTIALS_HELP}`, location, k);
    }
    // versitygw answers an unknown access key with its own code.
    if (code === 'InvalidAccessKeyId' || code === 'XAdminUserNotFound') {
      return new BlobStoreAccessError(`cannot ${action} (${where}): ${server} does not know AWS_ACCESS_KEY_ID; ${CREDENTIALS_HELP}`, location, k);
    }
    if (code === 'SignatureDoesNotMatch') {
      return new BlobStoreAccessError(
        `cannot ${action} (${where}): ${server} rejected the request signature: AWS_SECRET_ACCESS_KEY does not belong to AWS_ACCESS_KEY_ID; ${CREDENTIALS_HELP}`,
        location,
        k,
      );
    }
    if (code === 'NoSuchBucket') {
      return new BlobStoreAccessError(`cannot ${action} (${where}): bucket ${opts.bucket} does not exist on ${server}; create it or fix WSMIGRATE_BLOB_URL`, location, k);
    }
    if (code === 'AccessDenied' || status === 403 || status === 401) {
      return new BlobStoreAccessError(
        `cannot ${action} (${where}): access denied by ${server}; the credentials (AWS_ACCESS_KEY_ID / AWS_PROFILE) need s3:GetObject, s3:PutObject, s3:ListBucket and, for prune, s3:DeleteObject on ${location}`,
        location,
        k,
      );
    }
    if (status === undefined || status >= 500 || code === 'TimeoutError') {
      // A network error's own code or message ("connect ECONNREFUSED 127.0.0.1:9000") carries no secret.
      const why = status === undefined ? (e.code ?? (e.message ? e.message.replace(/^AWS SDK error wrapper for (Error: )?/, '').slice(0, 120) : code)) : `HTTP ${status} ${code}`;
      return new BlobStoreUnavailableError(`cannot ${action} (${where}): ${server} did not answer (${why}); check the server is up and WSMIGRATE_S3_ENDPOINT`, location, k);
    }
    return new BlobStoreError(`cannot ${action} (${where}): ${server} answered HTTP ${status} ${code}`, location, k);
  }

  const isMissing = (err: unknown) => {
    const e = err as S3ErrorShape;
    // Only these: some servers answer an unknown access key with a 404 of their own.
    return e.name === 'NoSuchKey' || e.name === 'NotFound';
  };
  const isPreconditionFailed = (err: unknown) => {
    const status = (err as S3ErrorShape).$metadata?.httpStatusCode;
    return status === 412 || status === 409;
  };

  async function getObject(k: string, action: string): Promise<Buffer | undefined> {
    try {
      const res = await client.send(new GetObjectCommand({ Bucket: opts.bucket, Key: k }));
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw translate(err, k, action);
    }
  }

  /** Creates the object unless it exists; false when someone else created it first. */
  async function createObject(k: string, body: Buffer, action: string, contentType: string, replace = false): Promise<boolean> {
    try {
      await client.send(new PutObjectCommand({ Bucket: opts.bucket, Key: k, Body: body, ContentType: contentType, ...(replace ? {} : { IfNoneMatch: '*' }) }));
      return true;
    } catch (err) {
      if (!replace && isPreconditionFailed(err)) return false;
      throw translate(err, k, action);
    }
  }

  async function listKeys(under: string, action: string): Promise<{ key: string; lastModified?: Date }[]> {
    const out: { key: string; lastModified?: Date }[] = [];
    let token: string | undefined;
    do {
      let res;
      try {
        res = await client.send(new ListObjectsV2Command({ Bucket: opts.bucket, Prefix: fullKey(under), ContinuationToken: token }));
      } catch (err) {
        throw translate(err, fullKey(under), action);
      }
      for (const o of res.Contents ?? []) if (o.Key) out.push({ key: o.Key, lastModified: o.LastModified });
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async function writeRecord(hex: string, size: number, encrypted: boolean, meta: BlobMeta | undefined): Promise<void> {
    if (!meta) return;
    const k = fullKey(metaKey(hex, recordId(hex, meta)));
    const record = makeRecord(location, hex, size, encrypted, meta, now());
    // A retried put finds its record already there: the first write's time stands.
    await createObject(k, Buffer.from(`${JSON.stringify(record, null, 2)}\n`, 'utf8'), 'record the backup', 'application/json');
  }

  async function readVerified(hex: string, action: string): Promise<Buffer> {
    const k = fullKey(blobKey(hex));
    const stored = await getObject(k, action);
    if (!stored) {
      throw new BlobNotFoundError(`${describe(hex)} does not exist; check WSMIGRATE_BLOB_URL points at the store the backup was written to`, location, k);
    }
    const decoded = decodeBlob(hex, stored, key, describe(hex));
    if (!decoded.ok) throw new BlobUnreadableError(decoded.problem, location, k);
    return decoded.bytes;
  }

  return {
    location,

    async put(bytes, meta) {
      const hex = sha256Hex(bytes);
      const k = fullKey(blobKey(hex));
      const ref = { ref: formatBlobRef(location, hex), sha256: hex, size: bytes.length };
      const existing = await getObject(k, 'store a blob');
      let replace = false;
      if (existing) {
        const decoded = decodeBlob(hex, existing, key, describe(hex));
        if (decoded.ok && (decoded.encrypted || !key)) {
          await writeRecord(hex, bytes.length, decoded.encrypted, meta);
          return { ...ref, encrypted: decoded.encrypted };
        }
        if (!decoded.ok && decoded.needsKey) throw new Error(`cannot store: ${decoded.problem}`);
        // Damaged, or a plaintext copy while we hold a key: we have the exact bytes, so a verified copy replaces it.
        replace = true;
      }
      const created = await createObject(k, encodeBlob(hex, bytes, key), 'store a blob', 'application/octet-stream', replace);
      if (!created) {
        // Another worker stored the same bytes between our read and our write: check theirs.
        await readVerified(hex, 'store a blob');
      }
      await writeRecord(hex, bytes.length, key !== undefined, meta);
      return { ...ref, encrypted: key !== undefined };
    },

    async get(ref) {
      const hex = ownHex(location, ref, 'Point WSMIGRATE_BLOB_URL at that store to read it.');
      return readVerified(hex, 'read a blob');
    },

    async has(ref) {
      const parsed = parseBlobRef(ref);
      if (parsed.location !== undefined && parsed.location !== location) return false;
      return (await getObject(fullKey(blobKey(parsed.sha256)), 'check a blob')) !== undefined;
    },

    async list() {
      const blobs = await listKeys('sha256/', 'list blobs');
      const metas = await listKeys('meta/', 'list blob records');
      const recordsByHex = new Map<string, BlobRecord[]>();
      for (const m of metas) {
        const hex = /meta\/([0-9a-f]{64})\/[^/]+\.json$/.exec(m.key)?.[1];
        if (!hex) continue;
        const text = await getObject(m.key, 'read a blob record');
        const record = text && parseRecord(text.toString('utf8'));
        if (record) recordsByHex.set(hex, [...(recordsByHex.get(hex) ?? []), record]);
      }
      const out: StoredBlob[] = [];
      for (const b of blobs) {
        const hex = b.key.slice(b.key.lastIndexOf('/') + 1);
        if (!BLOB_HEX.test(hex)) continue;
        out.push({ ref: formatBlobRef(location, hex), sha256: hex, lastModified: (b.lastModified ?? new Date(0)).toISOString(), records: recordsByHex.get(hex) ?? [] });
      }
      return out;
    },

    async records(hex) {
      if (!BLOB_HEX.test(hex)) throw new Error(`not a blob sha256: ${JSON.stringify(hex.slice(0, 80))}`);
      const records: BlobRecord[] = [];
      for (const m of await listKeys(`meta/${hex}/`, 'list blob records')) {
        const text = await getObject(m.key, 'read a blob record');
        const record = text && parseRecord(text.toString('utf8'));
        if (record) records.push(record);
      }
      return records;
    },

    async remove(hex) {
      if (!BLOB_HEX.test(hex)) throw new Error(`not a blob sha256: ${JSON.stringify(hex.slice(0, 80))}`);
      const keys = [fullKey(blobKey(hex)), ...(await listKeys(`meta/${hex}/`, 'list blob records')).map((m) => m.key)];
      for (const k of keys) {
        try {
          await client.send(new DeleteObjectCommand({ Bucket: opts.bucket, Key: k }));
        } catch (err) {
          throw translate(err, k, 'delete a blob');
        }
      }
    },
  };
}
