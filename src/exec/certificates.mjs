// @ts-check
// The egress proxy's per-installation CA and the leaf certificates it issues for credential hosts, through
// @peculiar/x509 (WebCrypto, ECDSA P-256): never hand-written ASN.1. Plain JavaScript, because the egress process
// (egressProcess.mjs) issues leaves and runs without a TypeScript loader; the bot makes the CA (egressCa.ts).
import { webcrypto } from 'node:crypto';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' };
const DAY_MS = 86_400_000;

/** @typedef {{ certPem: string; keyPem: string }} CaPems */
/** @typedef {{ cert: string; key: string }} Leaf */

/** @type {Promise<typeof import('@peculiar/x509')> | undefined} */
let loading;
function x509() {
  // @peculiar/x509 loads tsyringe, which throws unless the Reflect metadata API exists: the standard polyfill first.
  loading ??= import('reflect-metadata').then(() => import('@peculiar/x509')).then((module) => {
    module.cryptoProvider.set(/** @type {any} */ (webcrypto));
    return module;
  });
  return loading;
}

/** @param {ArrayBuffer} der @param {string} label */
function pem(der, label) {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/**
 * A new CA: self-signed, ten years, path length 0 (it signs leaves only), named after the installation.
 * @param {string} name a short label for its subject (e.g. the host's name)
 * @returns {Promise<CaPems>}
 */
export async function createCa(name) {
  const lib = await x509();
  const keys = /** @type {import("node:crypto").webcrypto.CryptoKeyPair} */ (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']));
  const safe = name.replace(/[^A-Za-z0-9 ._-]/g, '').slice(0, 40) || 'skillbot';
  const cert = await lib.X509CertificateGenerator.createSelfSigned({
    name: `CN=skillbot egress CA (${safe}), O=skillbot`,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + 3650 * DAY_MS),
    keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new lib.BasicConstraintsExtension(true, 0, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.keyCertSign | lib.KeyUsageFlags.cRLSign, true),
      await lib.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const key = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certPem: `${cert.toString('pem').trim()}\n`, keyPem: pem(key, 'PRIVATE KEY') };
}

/**
 * Issues leaves for one CA: one key pair for every leaf (made once), a certificate per host name (a week long,
 * cached by the caller). Rejects when the CA's PEMs are unusable.
 * @param {CaPems} ca
 */
export async function leafIssuer(ca) {
  const lib = await x509();
  const caCert = new lib.X509Certificate(ca.certPem);
  const der = Buffer.from(ca.keyPem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
  const caKey = await webcrypto.subtle.importKey('pkcs8', der, ALGORITHM, false, ['sign']);
  const keys = /** @type {import("node:crypto").webcrypto.CryptoKeyPair} */ (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']));
  const keyPem = pem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  const authority = await lib.AuthorityKeyIdentifierExtension.create(caCert, false);
  /**
   * @param {string} host a DNS name
   * @returns {Promise<Leaf>}
   */
  return async (host) => {
    const cert = await lib.X509CertificateGenerator.create({
      subject: `CN=${host.replace(/[^A-Za-z0-9.-]/g, '')}`,
      issuer: caCert.subject,
      notBefore: new Date(Date.now() - DAY_MS),
      notAfter: new Date(Date.now() + 7 * DAY_MS),
      publicKey: keys.publicKey,
      signingKey: caKey,
      signingAlgorithm: SIGNING,
      extensions: [
        new lib.BasicConstraintsExtension(false, undefined, true),
        new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature, true),
        new lib.ExtendedKeyUsageExtension([lib.ExtendedKeyUsage.serverAuth]),
        new lib.SubjectAlternativeNameExtension([{ type: 'dns', value: host }]),
        authority,
      ],
    });
    return { cert: `${cert.toString('pem').trim()}\n`, key: keyPem };
  };
}
