// Tokens a service marks with its own prefix, so they are recognised by shape alone. The prefixes
// and lengths are the services' documented formats (the same facts secret scanners such as
// gitleaks and trufflehog list). Each pattern starts with \b and its literal prefix, and is
// bounded; secret-shapes.ts joins them into one pattern.
export const PREFIXED_TOKENS: RegExp[] = [
  // Slack bot/user/app/refresh tokens.
  /\bxox[abposre]-[A-Za-z0-9-]{8,}/g,
  /\bxapp-[A-Za-z0-9-]{8,}/g,
  // Matrix access tokens (Synapse syt_, Matrix Authentication Service mct_).
  /\b(?:syt|mct)_[A-Za-z0-9_]{16,}/g,
  // GitHub (personal, OAuth, user-to-server, server-to-server, refresh; fine-grained) and GitLab tokens.
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bgl(?:pat|dt|rt|ptt|cbt|imt|ft|soat|oas|agent|ww)-[A-Za-z0-9_-]{20,}/g,
  // AWS access key ids.
  /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b/g,
  // OpenAI / Anthropic / DeepSeek … sk- keys; Stripe; Stripe webhook secrets.
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{10,}/g,
  /\bwhsec_[A-Za-z0-9]{20,}/g,
  // Hugging Face user and organisation tokens.
  /\bhf_[A-Za-z0-9]{30,}/g,
  /\bapi_org_[A-Za-z0-9]{30,}/g,
  // Twilio API key SIDs.
  /\bSK[0-9a-fA-F]{32}\b/g,
  // Google API keys, OAuth client secrets and access tokens.
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\bGOCSPX-[A-Za-z0-9_-]{28}/g,
  /\bya29\.[0-9A-Za-z_-]{20,}/g,
  // npm, PyPI, RubyGems, Docker Hub.
  /\bnpm_[A-Za-z0-9]{30,}/g,
  /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g,
  /\brubygems_[a-f0-9]{48}\b/g,
  /\bdckr_pat_[A-Za-z0-9_-]{27,}/g,
  // SendGrid: SG.<22>.<43>.
  /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/g,
  // Mailgun, Mailchimp (<32 hex>-us<n>), Postman, Linear, Notion.
  /\bkey-[0-9a-z]{32}\b/g,
  /\b[0-9a-f]{32}-us\d{1,2}\b/g,
  /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/g,
  /\blin_api_[A-Za-z0-9]{40}\b/g,
  /\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,50})\b/g,
  // Shopify, Square, DigitalOcean, Supabase, Pulumi, Doppler, HashiCorp Vault, Terraform Cloud.
  /\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b/g,
  /\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}/g,
  /\bdo[opr]_v1_[a-f0-9]{64}\b/g,
  /\bsbp_[a-f0-9]{40}\b/g,
  /\bpul-[a-f0-9]{40}\b/g,
  /\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b/g,
  /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/g,
  /\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}/g,
  // Atlassian API tokens, Grafana service-account and cloud tokens, New Relic user keys, Sentry.
  /\bATATT3[A-Za-z0-9_=-]{100,200}/g,
  /\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b/g,
  /\bglc_[A-Za-z0-9+/]{32,400}={0,2}/g,
  /\bNRAK-[A-Z0-9]{27}\b/g,
  /\bsntr[ysu]_[A-Za-z0-9+/=_-]{40,}/g,
  // Replicate, Groq, xAI, Perplexity, Tailscale, Databricks, Age secret keys.
  /\br8_[A-Za-z0-9]{37}\b/g,
  /\bgsk_[A-Za-z0-9]{52}\b/g,
  /\bxai-[A-Za-z0-9]{80}\b/g,
  /\bpplx-[A-Za-z0-9]{48}\b/g,
  /\btskey-(?:auth|api|client|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}/g,
  /\bdapi[a-f0-9]{32}\b/g,
  /\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b/g,
];
