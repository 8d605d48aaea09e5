import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/host/errors.js';
import { exchangeIdToken, jwtBearerRequest, type FetchLike } from '../../../src/tools/mcp/auth/cross-app-access.js';

const grant = 'eyJhbGciOiJFUzI1NiIsInR5cCI6Im9hdXRoLWlkLWphZytqd3QifQ.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl';
const target = { audience: 'https://auth.example', resource: 'https://mcp.example/mcp', scope: 'issues:read' };
const provider = { token_endpoint: 'https://idp.example/oauth2/token', client_id: 'rho-ci', id_token: 'the-id-token' };

/** A fetch that answers once with `status` and `body`, and keeps what it was sent. */
function answering(status: number, body: unknown) {
  const sent: { url: string; headers: Headers; form: URLSearchParams }[] = [];
  const send: FetchLike = async (input, init) => {
    sent.push({ url: String(input), headers: new Headers(init?.headers), form: new URLSearchParams(String(init?.body)) });
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return { sent, send };
}

const issued = { access_token: grant, issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A' };

describe('exchanging an ID token for an ID-JAG (RFC 8693)', () => {
  it('asks the identity provider for an ID-JAG for the authorization server and the resource, and hands the grant to the masker first', async () => {
    const { sent, send } = answering(200, issued);
    const masked: string[] = [];
    expect(await exchangeIdToken(provider, target, send, (secret) => masked.push(secret))).toBe(grant);
    expect(masked).toEqual([grant]);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe(provider.token_endpoint);
    expect(Object.fromEntries(sent[0]!.form)).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      audience: 'https://auth.example',
      resource: 'https://mcp.example/mcp',
      subject_token: 'the-id-token',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      scope: 'issues:read',
      client_id: 'rho-ci',
    });
    expect(sent[0]!.headers.get('authorization')).toBeNull();
  });

  it('authenticates a confidential client with client_secret_basic, never in the form', async () => {
    const { sent, send } = answering(200, issued);
    await exchangeIdToken({ ...provider, client_id: 'rho ci', client_secret: 's:cret' }, target, send, () => {});
    expect(sent[0]!.headers.get('authorization')).toBe(`Basic ${Buffer.from('rho%20ci:s%3Acret').toString('base64')}`);
    expect(sent[0]!.form.has('client_id')).toBe(false);
    expect(sent[0]!.form.has('client_secret')).toBe(false);
  });

  it('fails with what a refusing identity provider said, on one printable line', async () => {
    const { send } = answering(400, { error: 'invalid_grant', error_description: 'the ID token\nhas expired' });
    const refused = exchangeIdToken(provider, target, send, () => {});
    await expect(refused).rejects.toBeInstanceOf(ToolError);
    await expect(refused).rejects.toMatchObject({
      kind: 'execution_failed',
      message:
        'the identity provider at https://idp.example/oauth2/token did not exchange the ID token for an authorization grant: it refused: invalid_grant (the ID token has expired)',
    });
  });

  it('refuses an answer that is not JSON, holds no JWT, or is not an ID-JAG', async () => {
    await expect(exchangeIdToken(provider, target, answering(502, '<html>bad gateway</html>').send, () => {})).rejects.toThrow('it answered 502 with something other than JSON');
    await expect(exchangeIdToken(provider, target, answering(200, { ...issued, access_token: 'not a jwt' }).send, () => {})).rejects.toThrow(
      'its answer holds no grant (a JWT in access_token)',
    );
    const masked: string[] = [];
    const accessToken = exchangeIdToken(provider, target, answering(200, { ...issued, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' }).send, (secret) =>
      masked.push(secret),
    );
    await expect(accessToken).rejects.toThrow('it issued a token of type urn:ietf:params:oauth:token-type:access_token, not an ID-JAG');
    // What came back is a credential all the same: masked before the refusal is reported.
    expect(masked).toEqual([grant]);
  });

  it('refuses an answer larger than a grant can be', async () => {
    const { send } = answering(200, { ...issued, padding: 'x'.repeat(70 * 1024) });
    await expect(exchangeIdToken(provider, target, send, () => {})).rejects.toThrow('its answer is larger than 64 KiB');
  });
});

describe('the JWT bearer grant (RFC 7523)', () => {
  it('presents the ID-JAG as the assertion, with the configured scope', () => {
    expect(Object.fromEntries(jwtBearerRequest(grant, 'issues:read'))).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: grant,
      scope: 'issues:read',
    });
    expect(jwtBearerRequest(grant).has('scope')).toBe(false);
  });
});
