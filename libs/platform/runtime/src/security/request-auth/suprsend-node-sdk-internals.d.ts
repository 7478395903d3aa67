/**
 * Types for the internal signing helper of @suprsend/node-sdk (dev dependency), which the
 * tests import to sign requests exactly as the SDK does. Source: src/signature.js of the SDK.
 */
declare module '@suprsend/node-sdk/dist/signature' {
  /** base64 HMAC-SHA256 over `VERB\nmd5hex(content)\nheaders["Content-Type"]\nheaders["Date"]\npathname+search`. */
  export default function get_request_signature(
    url: string,
    http_verb: string,
    content: string,
    headers: { readonly 'Content-Type'?: string; readonly Date: string },
    secret: string,
  ): string;
}
