import { ApiProperty } from '@nestjs/swagger';
import { ENTITLEMENTS, PERMISSIONS, STAFF_ROLES, STORE_PLANS } from '../../../common/permissions.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../token-lifetimes.js';

class StaffSessionFields {
  @ApiProperty({ type: 'integer', example: ACCESS_TOKEN_TTL_SECONDS }) expiresIn: number;
  @ApiProperty({ format: 'date-time' }) accessTokenExpiresAt: string;
  @ApiProperty({ format: 'date-time' }) refreshTokenExpiresAt: string;
  @ApiProperty({ format: 'uuid', description: 'The staff session.' }) sessionId: string;
}

export class BearerStaffSessionResponse extends StaffSessionFields {
  @ApiProperty({ enum: ['Bearer'] }) tokenType: 'Bearer';
  @ApiProperty({ description: 'JWT (EdDSA, `kid` in the header), for /admin only; send as `Authorization: Bearer …`.' })
  accessToken: string;
  @ApiProperty({ description: 'Opaque, single use, 30 days.' }) refreshToken: string;
  @ApiProperty({ enum: ['bearer'] }) transport: 'bearer';
}

export class CookieStaffSessionResponse extends StaffSessionFields {
  @ApiProperty({ enum: ['Cookie'] }) tokenType: 'Cookie';
  @ApiProperty({ enum: ['cookie'] }) transport: 'cookie';
}

class MeStaff {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() email: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: STAFF_ROLES }) role: string;
}

class MeSupport {
  @ApiProperty({ description: 'The support agent’s email.' }) agent: string;
  @ApiProperty() reason: string;
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
}

class MeStore {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: STORE_PLANS }) plan: string;
  @ApiProperty({ example: 'Asia/Riyadh' }) timezone: string;
  @ApiProperty({ example: 'SAR' }) currency: string;
}

export class MeResponse {
  @ApiProperty({ type: MeStaff, nullable: true, description: 'The signed-in staff member; null for a support session.' })
  staff: MeStaff | null;
  @ApiProperty({ type: MeSupport, nullable: true, description: 'The support session; null for a staff member.' })
  support: MeSupport | null;
  @ApiProperty({ type: MeStore }) store: MeStore;
  @ApiProperty({ type: [String], enum: PERMISSIONS, description: 'What the caller may do, read at request time.' })
  permissions: string[];
  @ApiProperty({ type: [String], enum: ENTITLEMENTS, description: 'What the store’s plan includes.' })
  entitlements: string[];
  @ApiProperty({ description: 'True for a support session: every write is refused with support_read_only.' })
  readOnly: boolean;
}
