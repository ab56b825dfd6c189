/** The brand workflow's phase table (see ../entity/phases.ts). */
import type { BrandPhase } from '../../contracts/brand.js';
import type { PhaseTable } from '../entity/phases.js';

export type BrandOperation =
  | 'correctBrand'
  | 'revet'
  | 'appeal'
  | 'orderVet'
  | 'importVet'
  | 'cancel'
  | 'acknowledge';

const registered: readonly BrandOperation[] = [
  'correctBrand',
  'revet',
  'appeal',
  'orderVet',
  'importVet',
  'cancel',
  'acknowledge',
];

export const brandPhases: PhaseTable<BrandPhase, BrandOperation> = {
  registering: {
    final: false,
    waitsFor: 'registry: brand registration',
    poll: 'pending',
    allows: ['cancel'],
  },
  'registration-rejected': {
    final: false,
    waitsFor: 'operator: correctBrand with corrected registration fields, or cancel',
    poll: 'none',
    allows: ['correctBrand', 'cancel'],
  },
  'awaiting-contact-verification': {
    final: false,
    waitsFor: 'registry: business contact e-mail verification',
    poll: 'pending',
    allows: registered,
  },
  'awaiting-sole-proprietor-verification': {
    final: false,
    waitsFor: 'registry: sole proprietor verification',
    poll: 'pending',
    allows: registered,
  },
  'needs-correction': {
    final: false,
    waitsFor: 'operator: correctBrand + revet, or appeal',
    poll: 'steady',
    allows: registered,
  },
  'appeal-pending': {
    final: false,
    waitsFor: 'registry: appeal review',
    poll: 'pending',
    allows: registered,
  },
  ready: {
    final: false,
    waitsFor: 'registry events (steady reconciliation)',
    poll: 'steady',
    allows: registered,
  },
  deleted: { final: true, waitsFor: 'nothing (final)', poll: 'none', allows: [] },
  cancelled: { final: true, waitsFor: 'nothing (final)', poll: 'none', allows: [] },
};
