import { BlobRefError, blobKey, formatBlobRef, formatLocation, parseBlobRef, parseLocation } from '../../src/domain/blob-ref';

const HEX = 'ab'.repeat(32);

describe('blob refs', () => {
  it('reads a located ref (its store normalized) and a bare one (the configured store)', () => {
    expect(parseBlobRef(`s3://bkt/prod/sha256/${HEX}`)).toEqual({ sha256: HEX, location: 's3://bkt/prod' });
    expect(parseBlobRef(`file:///var/lib/wsmigrate/blobs/sha256/${HEX}`)).toEqual({ sha256: HEX, location: 'file:///var/lib/wsmigrate/blobs' });
    expect(parseBlobRef(`sha256:${HEX}`)).toEqual({ sha256: HEX });
    expect(parseBlobRef(formatBlobRef('s3://bkt', HEX))).toEqual({ sha256: HEX, location: 's3://bkt' });
    expect(blobKey(HEX)).toBe(`sha256/${HEX}`);
  });

  it('refuses what is not a ref, saying what one looks like', () => {
    for (const bad of ['sha256:ABC', `sha256:${HEX.toUpperCase()}`, `gs://b/sha256/${HEX}`, `s3://UP/sha256/${HEX}`, `file://rel/sha256/${HEX}`]) {
      expect(() => parseBlobRef(bad)).toThrow(BlobRefError);
    }
    expect(() => parseBlobRef('nope')).toThrow(/expected 'sha256:' followed by 64 lowercase hex characters/);
  });

  it('parses store locations and names the setting in each refusal', () => {
    expect(parseLocation('s3://wsmigrate-backups/prod/')).toEqual({ kind: 's3', bucket: 'wsmigrate-backups', prefix: 'prod' });
    expect(parseLocation('s3://bkt')).toEqual({ kind: 's3', bucket: 'bkt', prefix: '' });
    expect(parseLocation('file:///data/blobs/')).toEqual({ kind: 'file', dir: '/data/blobs' });
    expect(formatLocation({ kind: 's3', bucket: 'bkt', prefix: '' })).toBe('s3://bkt');
    expect(formatLocation({ kind: 's3', bucket: 'bkt', prefix: 'a/b' })).toBe('s3://bkt/a/b');
    expect(() => parseLocation('s3://Bad_Bucket/x', 'WSMIGRATE_BLOB_URL')).toThrow(/^WSMIGRATE_BLOB_URL: "Bad_Bucket" is not an S3 bucket name/);
    expect(() => parseLocation('s3://bkt/a/../b')).toThrow(/must not contain '\.' or '\.\.' segments/);
    expect(() => parseLocation('file://relative/dir', 'X')).toThrow(/^X: a file store needs an absolute path/);
    expect(() => parseLocation('gs://b', 'X')).toThrow(/^X must be s3:\/\/bucket\/prefix or file:\/\/\/absolute\/dir/);
  });
});
