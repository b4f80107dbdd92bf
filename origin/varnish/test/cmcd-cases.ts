/**
 * CMCD rtp cases every edge here must treat alike (the Fastly VCL's falco tests hold the same list):
 * [name, query string (without "?"), request headers, expected kbps].
 */
export const q = (payload: string) => `CMCD=${encodeURIComponent(payload)}`;

// The malformed list of origin/fastly/tests/main.test.vcl: each is ignored, the request unpaced.
export const MALFORMED: Array<[string, string, Record<string, string>]> = [
  ['non-numeric', q('rtp=abc'), {}],
  ['negative (header)', '', { 'CMCD-Status': 'rtp=-15000' }],
  ['zero', q('rtp=0'), {}],
  ['empty value', q('rtp=,bl=200'), {}],
  ['number then junk (header)', '', { 'CMCD-Status': 'rtp=15000kbps' }],
  ['exponent notation (header)', '', { 'CMCD-Status': 'rtp=1e5' }],
  ['two CMCD parameters', `${q('rtp=15000')}&${q('rtp=900')}`, {}],
  ['payload over 4096 bytes', q(`sid="${'x'.repeat(4100)}",rtp=15000`), {}],
  ['header payload over 4096 bytes', '', { 'CMCD-Status': `rtp=15000,x="${'y'.repeat(4100)}"` }],
  ['a key merely ending in rtp (header)', '', { 'CMCD-Status': 'xrtp=15000' }],
  ['upper-case key RTP', q('RTP=15000'), {}],
  ['mixed-case key Rtp (header)', '', { 'CMCD-Status': 'Rtp=15000' }],
  ['lower-case parameter name cmcd', `cmcd=${encodeURIComponent('rtp=15000')}`, {}],
  ['malformed query rtp decides over a good header', q('rtp=fast'), { 'CMCD-Status': 'rtp=8000' }],
  ['a stray % in the payload', 'CMCD=rtp%3D15000%zz', {}],
];
export const VALID: Array<[string, string, Record<string, string>, number]> = [
  ['query mode among other keys', q('bl=21300,br=3200,rtp=15000'), {}, 15000],
  ['header mode among other keys', '', { 'CMCD-Status': 'bs,rtp=8000', 'CMCD-Request': 'bl=21300' }, 8000],
  ['the query’s rtp wins over CMCD-Status', q('rtp=15000'), { 'CMCD-Status': 'rtp=8000' }, 15000],
  ['a query CMCD without rtp defers to CMCD-Status', q('bl=21300,br=3200'), { 'CMCD-Status': 'rtp=8000' }, 8000],
  ['an rtp look-alike in a quoted query value defers to CMCD-Status', q('sid="x,rtp=1"'), { 'CMCD-Status': 'rtp=8000' }, 8000],
  ['a quoted ",rtp=" before the real key', q('cid="a,rtp=1",rtp=15000'), {}, 15000],
  ['lower-case percent-escapes', 'CMCD=bl%3d21300%2crtp%3d15000', {}, 15000],
  ['an unencoded payload', 'CMCD=bl=21300,rtp=15000', {}, 15000],
  ['leading zeros', q('rtp=0015000'), {}, 15000],
  ['a long payload just under 4096 bytes', q(`sid="${'x'.repeat(4000)}",rtp=15000`), {}, 15000],
  ['a long header payload just under 4096 bytes', '', { 'CMCD-Status': `rtp=15000,x="${'y'.repeat(4000)}"` }, 15000],
];
