/** Reference lists served by the `/enum/*` endpoints, modelled on the real registry's values. */

export interface UseCaseDef {
  classification: 'STANDARD' | 'SPECIAL';
  description: string;
  displayName: string;
  minSubUsecases: number;
  maxSubUsecases: number;
  validSubUsecase: boolean;
  /** Simulator: monthly fee in USD charged on creation and renewal. */
  monthlyFee: number;
}

const std = (
  displayName: string,
  description: string,
  monthlyFee = 10,
  validSubUsecase = true,
): UseCaseDef => ({
  classification: 'STANDARD',
  description,
  displayName,
  minSubUsecases: 0,
  maxSubUsecases: 0,
  validSubUsecase,
  monthlyFee,
});
const special = (displayName: string, description: string, monthlyFee = 10): UseCaseDef => ({
  classification: 'SPECIAL',
  description,
  displayName,
  minSubUsecases: 0,
  maxSubUsecases: 0,
  validSubUsecase: false,
  monthlyFee,
});

export const USE_CASES: Record<string, UseCaseDef> = {
  '2FA': std('2FA', 'Authentication, account verification or one-time passcodes.'),
  ACCOUNT_NOTIFICATION: std(
    'Account Notification',
    'Standard notifications for account holders about their account.',
  ),
  CUSTOMER_CARE: std('Customer Care', 'Communication with customers about account management and support.'),
  DELIVERY_NOTIFICATION: std('Delivery Notification', 'Status of the delivery of a product or service.'),
  FRAUD_ALERT: std('Fraud Alert Messaging', 'Notifications about potentially fraudulent activity.'),
  HIGHER_EDUCATION: std(
    'Higher Education',
    'Messaging by colleges, universities and other post-secondary schools.',
  ),
  MARKETING: std('Marketing', 'Any communication with marketing or promotional content.'),
  POLLING_VOTING: std('Polling and voting', 'Surveys and polling for non-political purposes.'),
  PUBLIC_SERVICE_ANNOUNCEMENT: std(
    'Public Service Announcement',
    'Informational messages raising public awareness.',
  ),
  SECURITY_ALERT: std('Security Alert', 'Notifications that the security of a system has been compromised.'),
  MIXED: {
    ...std('Mixed', 'Campaigns covering two to five standard use cases.', 10, false),
    minSubUsecases: 2,
    maxSubUsecases: 5,
  },
  LOW_VOLUME: {
    ...std(
      'Low Volume Mixed',
      'Low-throughput campaigns covering one to five standard use cases.',
      1.5,
      false,
    ),
    minSubUsecases: 1,
    maxSubUsecases: 5,
  },
  SOLE_PROPRIETOR: std('Sole Proprietor', 'Limited use case for sole proprietor brands.', 2, false),
  AGENTS_FRANCHISES: special(
    'Agents and Franchises',
    'Brands with multiple agents, franchises or offices.',
    30,
  ),
  CARRIER_EXEMPT: special('Carrier Exempt', 'Exemption by carrier agreement.'),
  CHARITY: special('Charity', 'Communications from a registered 501(c)(3) charity.', 3),
  EMERGENCY: special('Emergency', 'Notifications supporting public safety and health during emergencies.', 5),
  K12_EDUCATION: special('K-12 Education', 'Messaging by K-12 schools and their platforms.'),
  POLITICAL: special(
    'Political',
    'Part of an organized effort to influence elections or ballot measures.',
    10,
  ),
  PROXY: special('Proxy', 'Peer-to-peer app-based group messaging with proxy numbers.'),
  SOCIAL: special('Social', 'Communication within social media platforms.'),
  SWEEPSTAKES: special('Sweepstakes', 'Sweepstakes and contests.'),
  UCAAS_LOW: special('UCaaS Low Volume', 'Unified communications platforms, low volume.'),
  UCAAS_HIGH: special('UCaaS High Volume', 'Unified communications platforms, high volume.', 30),
};

export const VERTICALS: Record<string, { industryId: string; displayName: string; description: string }> = {
  AGRICULTURE: {
    industryId: 'agriculture',
    displayName: 'Agriculture',
    description: 'Farming and agriculture.',
  },
  COMMUNICATION: {
    industryId: 'communication',
    displayName: 'Communication and Mass Media',
    description: 'Broadcasting, publishing and telecommunications.',
  },
  CONSTRUCTION: {
    industryId: 'construction',
    displayName: 'Construction',
    description: 'Construction and trades.',
  },
  EDUCATION: { industryId: 'education', displayName: 'Education', description: 'Schools and training.' },
  ENERGY: { industryId: 'energy', displayName: 'Energy and Utilities', description: 'Power, gas and water.' },
  ENTERTAINMENT: {
    industryId: 'entertainment',
    displayName: 'Entertainment',
    description: 'Arts and recreation.',
  },
  FINANCIAL: {
    industryId: 'financial',
    displayName: 'Financial',
    description: 'Banking, lending and payments.',
  },
  GAMBLING: {
    industryId: 'gambling',
    displayName: 'Gambling and Lottery',
    description: 'Gaming and lotteries.',
  },
  GOVERNMENT: { industryId: 'government', displayName: 'Government', description: 'Public administration.' },
  HEALTHCARE: { industryId: 'healthcare', displayName: 'Healthcare and Life Sciences', description: 'Care.' },
  HOSPITALITY: {
    industryId: 'hospitality',
    displayName: 'Hospitality and Travel',
    description: 'Hotels, travel.',
  },
  HUMAN_RESOURCES: { industryId: 'hr', displayName: 'HR, Staffing or Recruitment', description: 'Staffing.' },
  INSURANCE: {
    industryId: 'insurance',
    displayName: 'Insurance',
    description: 'Insurance carriers and agents.',
  },
  LEGAL: { industryId: 'legal', displayName: 'Legal', description: 'Law firms and legal services.' },
  MANUFACTURING: { industryId: 'manufacturing', displayName: 'Manufacturing', description: 'Manufacturing.' },
  NGO: {
    industryId: 'ngo',
    displayName: 'Non-profit Organization',
    description: 'Non-governmental organizations.',
  },
  POLITICAL: { industryId: 'political', displayName: 'Political', description: 'Campaigns and committees.' },
  POSTAL: { industryId: 'postal', displayName: 'Postal and Delivery', description: 'Shipping and couriers.' },
  PROFESSIONAL: {
    industryId: 'professional',
    displayName: 'Professional Services',
    description: 'Consulting.',
  },
  REAL_ESTATE: { industryId: 'realestate', displayName: 'Real Estate', description: 'Property services.' },
  RETAIL: { industryId: 'retail', displayName: 'Retail and Consumer Products', description: 'Shops.' },
  TECHNOLOGY: {
    industryId: 'technology',
    displayName: 'Information Technology Services',
    description: 'IT.',
  },
  TRANSPORTATION: {
    industryId: 'transportation',
    displayName: 'Transportation or Logistics',
    description: 'Moving.',
  },
};

export interface MnoDef {
  networkId: number;
  displayName: string;
  osrBitmaskIndex: number;
}

export const MNOS: MnoDef[] = [
  { networkId: 10017, displayName: 'AT&T', osrBitmaskIndex: 0 },
  { networkId: 10035, displayName: 'T-Mobile', osrBitmaskIndex: 1 },
  { networkId: 10036, displayName: 'US Cellular', osrBitmaskIndex: 2 },
  { networkId: 10037, displayName: 'ClearSky', osrBitmaskIndex: 3 },
  { networkId: 10038, displayName: 'Verizon Wireless', osrBitmaskIndex: 4 },
  { networkId: 10043, displayName: 'Interop Technologies', osrBitmaskIndex: 5 },
];

export interface DcaDef {
  id: string;
  displayName: string;
  escalateEmail: string | null;
  dpaSigned: boolean;
  soleProprietorEnabled: boolean;
  dca2AutoAccept: boolean;
  /** Simulator: whether the DCA takes part in CNP migration (filter of `/enum/dca`). */
  cnpMigrationSupported: boolean;
}

export const DCAS: DcaDef[] = [
  {
    id: 'SINCH',
    displayName: 'Sinch',
    escalateEmail: 'tcr-escalations@sinch.example',
    dpaSigned: true,
    soleProprietorEnabled: true,
    dca2AutoAccept: true,
    cnpMigrationSupported: true,
  },
  {
    id: 'BANDWIDTH',
    displayName: 'Bandwidth',
    escalateEmail: '10dlc@bandwidth.example',
    dpaSigned: true,
    soleProprietorEnabled: true,
    dca2AutoAccept: false,
    cnpMigrationSupported: true,
  },
  {
    id: 'SYNIVERSE',
    displayName: 'Syniverse',
    escalateEmail: null,
    dpaSigned: true,
    soleProprietorEnabled: false,
    dca2AutoAccept: true,
    cnpMigrationSupported: false,
  },
  {
    id: 'INTEQNET',
    displayName: 'Inteliquent',
    escalateEmail: 'campaigns@inteliquent.example',
    dpaSigned: false,
    soleProprietorEnabled: false,
    dca2AutoAccept: false,
    cnpMigrationSupported: false,
  },
];

export interface CnpDef {
  cnpId: string;
  displayName: string;
  /** True when this partner is itself a DCA (accepting a share is a DCA acceptance). */
  dca: boolean;
  /** For a non-DCA partner: the DCA it shares onward to once it accepts. */
  forwardsToDcaId: string | null;
}

export const CNPS: CnpDef[] = [
  { cnpId: 'SINCH', displayName: 'Sinch', dca: true, forwardsToDcaId: null },
  { cnpId: 'BANDWIDTH', displayName: 'Bandwidth', dca: true, forwardsToDcaId: null },
  { cnpId: 'SYNIVERSE', displayName: 'Syniverse', dca: true, forwardsToDcaId: null },
  { cnpId: 'INTEQNET', displayName: 'Inteliquent', dca: true, forwardsToDcaId: null },
  { cnpId: 'CSPUPSTREAM', displayName: 'Upstream Messaging Partners', dca: false, forwardsToDcaId: 'SINCH' },
  { cnpId: 'CSPRELAY', displayName: 'Relay Wholesale SMS', dca: false, forwardsToDcaId: 'BANDWIDTH' },
];

export const OPTIONAL_ATTRIBUTE_NAMES = [
  {
    id: 'taxExemptStatus',
    dataType: 'STRING',
    description: 'Tax-exempt status of a verified non-profit, for example 501(c)(3).',
  },
  {
    id: 'governmentEntity',
    dataType: 'BOOLEAN',
    description: 'The brand is a verified US government entity.',
  },
  { id: 'section527', dataType: 'BOOLEAN', description: 'Political organization under IRS section 527.' },
  { id: 'politicalCommitteeLocale', dataType: 'STRING', description: 'Locale of a political committee.' },
  { id: 'einVerificationScore', dataType: 'INTEGER', description: 'Confidence of the EIN match, 0-100.' },
];

export const ALT_BUSINESS_ID_TYPES = ['NONE', 'DUNS', 'GIIN', 'LEI'];
export const BRAND_IDENTITY_STATUSES = ['SELF_DECLARED', 'UNVERIFIED', 'VERIFIED', 'VETTED_VERIFIED'];
export const BRAND_RELATIONSHIPS = [
  'BASIC_ACCOUNT',
  'SMALL_ACCOUNT',
  'MEDIUM_ACCOUNT',
  'LARGE_ACCOUNT',
  'KEY_ACCOUNT',
];
export const CAMPAIGN_STATUSES = ['ACTIVE', 'EXPIRED'];
export const ENTITY_TYPES = [
  'GOVERNMENT',
  'NON_PROFIT',
  'PRIVATE_PROFIT',
  'PUBLIC_PROFIT',
  'SOLE_PROPRIETOR',
];
export const VETTING_STATUSES = ['PENDING', 'UNSCORE', 'ACTIVE', 'FAILED', 'EXPIRED'];
export const VETTING_CLASSES = ['STANDARD', 'ENHANCED', 'POLITICAL'] as const;

export interface VettingProviderDef {
  evpId: string;
  displayName: string;
  registryBillable: boolean;
  vettingClasses: string[];
  /** Classes that can be ordered through the registry (the rest are import only). */
  orderable: string[];
  vettingInstruction: string;
}

function instruction(
  importInfo: string,
  newVet: { supported: boolean; price: Record<string, number> },
): string {
  return JSON.stringify({
    importVet: {
      supported: true,
      parameters: {
        vettingId: { label: 'Vetting ID', show: true },
        vettingToken: { label: 'Vetting Token', show: false },
      },
      info: importInfo,
    },
    newVet: {
      supported: newVet.supported,
      price: newVet.price,
      waitTime: newVet.supported ? 'Up to 48 hours' : 'Not available',
      info: newVet.supported
        ? 'The vet is ordered through the registry and billed to the CSP.'
        : 'Import only.',
    },
  });
}

export const VETTING_PROVIDERS: VettingProviderDef[] = [
  {
    evpId: 'AEGIS',
    displayName: 'Aegis Mobile',
    registryBillable: true,
    vettingClasses: ['STANDARD', 'ENHANCED', 'POLITICAL'],
    orderable: ['STANDARD', 'ENHANCED', 'POLITICAL'],
    vettingInstruction: instruction('Enter the vetting ID of an existing Aegis report.', {
      supported: true,
      price: { STANDARD: 41.5, ENHANCED: 95, POLITICAL: 95 },
    }),
  },
  {
    evpId: 'WMC',
    displayName: 'WMC Global',
    registryBillable: true,
    vettingClasses: ['STANDARD', 'ENHANCED'],
    orderable: ['STANDARD', 'ENHANCED'],
    vettingInstruction: instruction('Enter the vetting ID of an existing WMC Global report.', {
      supported: true,
      price: { STANDARD: 41.5, ENHANCED: 95 },
    }),
  },
  {
    evpId: 'CV',
    displayName: 'Campaign Verify',
    registryBillable: false,
    vettingClasses: ['POLITICAL'],
    orderable: [],
    vettingInstruction: instruction('Enter the Campaign Verify token issued for the committee.', {
      supported: false,
      price: {},
    }),
  },
];

export const US_STATES: Record<string, string> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'District of Columbia',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
  AS: 'American Samoa',
  GU: 'Guam',
  MP: 'Northern Mariana Islands',
  PR: 'Puerto Rico',
  VI: 'U.S. Virgin Islands',
};

export const ASSET_APPEAL_CATEGORIES = [
  {
    id: 'VERIFY_TAX_EXEMPT',
    displayName: 'Verify tax-exempt status',
    description: 'Request the taxExemptStatus attribute.',
  },
  {
    id: 'VERIFY_GOVERNMENT',
    displayName: 'Verify government entity',
    description: 'Request the governmentEntity attribute.',
  },
  {
    id: 'VERIFY_IDENTITY',
    displayName: 'Verify identity',
    description: 'The brand data is correct; re-check identity.',
  },
  { id: 'LOW_VET_SCORE', displayName: 'Dispute vet score', description: 'The vetting score looks wrong.' },
];

export const BRAND_APPEAL_CATEGORIES = [
  {
    id: 'VERIFY_IDENTITY',
    displayName: 'Verify identity',
    description: 'The brand data is correct; re-check identity.',
  },
  {
    id: 'VERIFY_TAX_EXEMPT',
    displayName: 'Verify tax-exempt status',
    description: 'Request taxExemptStatus.',
  },
  {
    id: 'VERIFY_GOVERNMENT',
    displayName: 'Verify government entity',
    description: 'Request governmentEntity.',
  },
];

export const VETTING_CLASS_RECORDS = [
  {
    vettingClass: 'STANDARD',
    displayName: 'Standard',
    description: 'Verifies the brand and grants a score.',
  },
  {
    vettingClass: 'ENHANCED',
    displayName: 'Enhanced',
    description: 'Deeper review after a low standard score.',
  },
  {
    vettingClass: 'POLITICAL',
    displayName: 'Political',
    description: 'Allows the POLITICAL special use case.',
  },
];

export function useCase(id: string): UseCaseDef | undefined {
  return Object.hasOwn(USE_CASES, id) ? USE_CASES[id] : undefined;
}

export function mnoById(id: number): MnoDef | undefined {
  return MNOS.find((m) => m.networkId === id);
}

export function cnpById(id: string): CnpDef | undefined {
  return CNPS.find((c) => c.cnpId === id);
}

export function dcaById(id: string): DcaDef | undefined {
  return DCAS.find((d) => d.id === id);
}

export function vettingProvider(evpId: string): VettingProviderDef | undefined {
  return VETTING_PROVIDERS.find((p) => p.evpId === evpId);
}
