import { describe, expect, it } from 'vitest';
import { excDocument, MerrittError, merrittErrorOf } from '../../../src/http/merritt/exc.js';
import { errorForm, merrittDate, renderState, requestedForm } from '../../../src/http/merritt/format.js';
import { batchStateDocument } from '../../../src/http/merritt/states.js';
import { HttpProblem } from '../../../src/http/errors.js';

const batch = batchStateDocument({
  batchID: 'bid-8c0fa0c2-f3d7-4deb-bd49-f953f6752b59',
  packageName: 'a <&> b.txt',
  userAgent: 'egh/Erik Hetzner',
  submissionDate: new Date('2011-08-31T22:40:26.123Z'),
});

describe("Merritt's state documents (mrt-core's XMLFormatter, JSONFormatter, ANVLFormatter)", () => {
  it('writes bat:batchState as XMLFormatter does: declaration, prefixed elements, 4-space indents, an empty map', () => {
    const { contentType, body } = renderState(batch, 'xml');
    expect(contentType).toBe('text/xml; charset=utf-8');
    expect(body).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        "<bat:batchState xmlns:bat='http://uc3.cdlib.org/ontology/mrt/ingest/batch'>",
        '    <bat:batchID>bid-8c0fa0c2-f3d7-4deb-bd49-f953f6752b59</bat:batchID>',
        '    <bat:packageName>a &lt;&amp;&gt; b.txt</bat:packageName>',
        '    <bat:userAgent>egh/Erik Hetzner</bat:userAgent>',
        '    <bat:submissionDate>2011-08-31T22:40:26+00:00</bat:submissionDate>',
        '    <bat:batchStatus>QUEUED</bat:batchStatus>',
        '    <bat:jobStates>',
        '    </bat:jobStates>',
        '</bat:batchState>',
      ].join('\n'),
    );
  });

  it("writes JSON as org.json's XML.toJSONObject reads that XML (what mrt-ingest-ruby parses)", () => {
    const { contentType, body } = renderState(batch, 'json');
    expect(contentType).toBe('application/json; charset=utf-8');
    expect(JSON.parse(body)).toEqual({
      'bat:batchState': {
        'xmlns:bat': 'http://uc3.cdlib.org/ontology/mrt/ingest/batch',
        'bat:batchID': 'bid-8c0fa0c2-f3d7-4deb-bd49-f953f6752b59',
        'bat:packageName': 'a <&> b.txt',
        'bat:userAgent': 'egh/Erik Hetzner',
        'bat:submissionDate': '2011-08-31T22:40:26+00:00',
        'bat:batchStatus': 'QUEUED',
        'bat:jobStates': '',
      },
    });
  });

  it('writes ANVL as name: value lines without prefixes', () => {
    const { contentType, body } = renderState(batch, 'anvl');
    expect(contentType).toBe('text/x-anvl; charset=utf-8');
    expect(body).toBe(
      'batchID: bid-8c0fa0c2-f3d7-4deb-bd49-f953f6752b59\n' +
        'packageName: a <&> b.txt\n' +
        'userAgent: egh/Erik Hetzner\n' +
        'submissionDate: 2011-08-31T22:40:26+00:00\n' +
        'batchStatus: QUEUED\n',
    );
  });

  it("writes an exc: document named after TException's class, numbers unquoted in JSON", () => {
    const error = new MerrittError('REQUEST_INVALID', 'profile: required');
    const xml = renderState(excDocument(error), 'xml').body;
    expect(xml).toContain(
      "<exc:tException.REQUEST_INVALID xmlns:exc='http://uc3.cdlib.org/ontology/mrt/core/exc'>",
    );
    expect(xml).toContain(
      '<exc:statusDescription>User/request supplied required parm is missing or invalid</exc:statusDescription>',
    );
    expect(xml).toContain(
      '<exc:error>REQUEST_INVALID[User/request supplied required parm is missing or invalid] profile: required</exc:error>',
    );
    const json = JSON.parse(renderState(excDocument(error), 'json').body) as Record<
      string,
      Record<string, unknown>
    >;
    expect(json['exc:tException.REQUEST_INVALID']).toMatchObject({
      'exc:hTTPResponse': 400,
      'exc:detail': 'profile: required',
    });
  });

  it("maps the API's own errors by their status, hiding internal ones", () => {
    expect(merrittErrorOf(new HttpProblem(413, 'UPLOAD_TOO_LARGE', 'too big'))).toMatchObject({
      error: { statusName: 'REQUEST_INVALID', httpStatus: 413, detail: 'too big' },
      internal: false,
    });
    expect(merrittErrorOf(new Error('secret path /x'))).toMatchObject({
      error: {
        statusName: 'GENERAL_EXCEPTION',
        httpStatus: 500,
        detail: 'internal error; see the service log',
      },
      internal: true,
    });
  });

  it('takes the form as processFormatType does: a named FormatType, else the exact Accept type, else xml', () => {
    expect(requestedForm(undefined, 'JSON')).toBe('json');
    expect(requestedForm('application/json', 'anvl')).toBe('anvl');
    expect(requestedForm('application/json', 'nonsense')).toBe('xml');
    expect(requestedForm('application/json')).toBe('json');
    expect(requestedForm('text/x-anvl', '')).toBe('anvl');
    expect(requestedForm('*/*')).toBe('xml');
    expect(requestedForm('application/json, text/plain')).toBe('xml');
    expect(requestedForm(undefined, 'zip')).toBe('zip');
    expect(errorForm('zip')).toBe('xml');
    expect(errorForm('anvl')).toBe('anvl');
  });

  it('writes dates as DateUtil.getIsoDate, the offset with a colon', () => {
    expect(merrittDate(new Date('2026-11-21T09:34:25.999Z'))).toBe('2026-11-21T09:34:25+00:00');
  });
});
