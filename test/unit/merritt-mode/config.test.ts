import { describe, expect, it } from 'vitest';
import { IngestConfigError, loadIngestSettings } from '../../../src/config/ingest.js';

describe('the Merritt deployment settings', () => {
  it('standalone needs none of them and has no hand-off settings', () => {
    expect(loadIngestSettings({}, '/tmp/d').merritt).toBeUndefined();
  });

  it('reads the public URL, the storage service and node', () => {
    const settings = loadIngestSettings(
      {
        MRTQ_DEPLOYMENT: 'merritt',
        MRTQ_PUBLIC_URL: 'http://ingest-1.example.org:8470/',
        MRTQ_STORAGE_SERVICE: 'http://store:8080/store',
        MRTQ_STORAGE_NODE: '7777',
      },
      '/tmp/d',
    );
    expect(settings.deployment).toBe('merritt');
    expect(settings.merritt).toEqual({
      publicUrl: 'http://ingest-1.example.org:8470',
      storageService: 'http://store:8080/store',
      storageNode: 7777,
    });
  });

  it("refuses a Merritt deployment without the URL Merritt's storage service fetches from", () => {
    expect(() => loadIngestSettings({ MRTQ_DEPLOYMENT: 'merritt' }, '/tmp/d')).toThrow(IngestConfigError);
    expect(() => loadIngestSettings({ MRTQ_DEPLOYMENT: 'merritt' }, '/tmp/d')).toThrow(/MRTQ_PUBLIC_URL/);
    expect(() =>
      loadIngestSettings({ MRTQ_DEPLOYMENT: 'merritt', MRTQ_PUBLIC_URL: 'ingest:8470' }, '/tmp/d'),
    ).toThrow(/MRTQ_PUBLIC_URL must be an http\(s\) URL/);
  });
});
