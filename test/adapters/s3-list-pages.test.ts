import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createS3BlobStore } from '../../src/adapters/s3-blob-store';

/**
 * ListObjectsV2 answers at most 1000 keys a page (IsTruncated, NextContinuationToken): a store with more
 * backups than that must follow the pages. The SDK's send is stubbed to answer one key a page.
 */
describe('S3 blob store listing in pages', () => {
  afterEach(() => jest.restoreAllMocks());

  it('follows NextContinuationToken to the last page: every blob is listed', async () => {
    const hexes = ['a', 'b', 'c'].map((c) => c.repeat(64));
    const tokens: (string | undefined)[] = [];
    jest.spyOn(S3Client.prototype, 'send').mockImplementation(async (command: unknown) => {
      if (!(command instanceof ListObjectsV2Command)) throw new Error(`unexpected ${String((command as object).constructor.name)}`);
      const { Prefix, ContinuationToken } = command.input;
      tokens.push(ContinuationToken);
      if (Prefix !== 'p/sha256/') return { Contents: [], IsTruncated: false };
      const i = ContinuationToken === undefined ? 0 : Number(ContinuationToken);
      return { Contents: [{ Key: `p/sha256/${hexes[i]}`, LastModified: new Date(0) }], IsTruncated: i + 1 < hexes.length, NextContinuationToken: String(i + 1) };
    });
    const store = createS3BlobStore({ bucket: 'b', prefix: 'p', endpoint: 'http://127.0.0.1:1', forcePathStyle: true });
    expect((await store.list()).map((b) => b.sha256)).toEqual(hexes);
    expect(tokens).toEqual([undefined, '1', '2', undefined]);
  });
});
