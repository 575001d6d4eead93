import type { Locale } from '../common/locale.js';
import type { AddressSnapshot } from '../common/address.js';
import { intBetween, pick, randomStream, WeightedTable, type Random } from './random.js';

/** A name as written in Arabic and in Latin letters (the Latin one also makes the e-mail address). */
interface Name {
  ar: string;
  en: string;
}

interface City {
  country: string;
  city: string;
  region: string;
  districts: Name[];
  /** First digits of the postal code; null where addresses carry none. */
  postalPrefix: string | null;
  phone: (rng: Random) => string;
  gulf: boolean;
}

/** A shopper's saved address; orders keep it as their snapshot. */
export interface DemoAddress extends AddressSnapshot {
  label: string;
}

export interface DemoPerson {
  firstName: string;
  lastName: string;
  /** The part of an e-mail address before the @, unique-ified by the caller. */
  emailLocal: string;
  emailDomain: string;
  locale: Locale;
  phone: string | null;
  marketingOptIn: boolean;
  emailVerified: boolean;
  /** 1 to 3, the first is the default shipping address. */
  addresses: DemoAddress[];
}

const n = (ar: string, en: string): Name => ({ ar, en });

const MALE = [
  n('محمد', 'Mohammed'),
  n('عبدالله', 'Abdullah'),
  n('فهد', 'Fahad'),
  n('خالد', 'Khalid'),
  n('سلطان', 'Sultan'),
  n('عبدالرحمن', 'Abdulrahman'),
  n('سعود', 'Saud'),
  n('فيصل', 'Faisal'),
  n('تركي', 'Turki'),
  n('ناصر', 'Nasser'),
  n('سعد', 'Saad'),
  n('عمر', 'Omar'),
  n('يوسف', 'Yousef'),
  n('إبراهيم', 'Ibrahim'),
  n('أحمد', 'Ahmed'),
  n('ماجد', 'Majed'),
  n('بندر', 'Bandar'),
  n('نايف', 'Naif'),
  n('مشعل', 'Mishal'),
  n('ريان', 'Rayan'),
  n('عبدالعزيز', 'Abdulaziz'),
  n('بدر', 'Badr'),
  n('حمد', 'Hamad'),
  n('زياد', 'Ziyad'),
  n('عبدالمجيد', 'Abdulmajeed'),
  n('مازن', 'Mazen'),
];
const FEMALE = [
  n('نورة', 'Noura'),
  n('سارة', 'Sara'),
  n('ريم', 'Reem'),
  n('لمى', 'Lama'),
  n('هيفاء', 'Haifa'),
  n('منيرة', 'Munira'),
  n('العنود', 'Alanoud'),
  n('الجوهرة', 'Aljawhara'),
  n('دانة', 'Dana'),
  n('شهد', 'Shahad'),
  n('رزان', 'Razan'),
  n('جود', 'Joud'),
  n('لجين', 'Lujain'),
  n('أمل', 'Amal'),
  n('هند', 'Hind'),
  n('مها', 'Maha'),
  n('نوف', 'Nouf'),
  n('بشاير', 'Bashayer'),
  n('غادة', 'Ghada'),
  n('أسماء', 'Asma'),
  n('فاطمة', 'Fatimah'),
  n('مريم', 'Maryam'),
  n('ديما', 'Dima'),
  n('رهف', 'Rahaf'),
];
const SAUDI_FAMILIES = [
  n('القحطاني', 'Al-Qahtani'),
  n('العتيبي', 'Al-Otaibi'),
  n('الغامدي', 'Al-Ghamdi'),
  n('الزهراني', 'Al-Zahrani'),
  n('الشهري', 'Al-Shehri'),
  n('الدوسري', 'Al-Dosari'),
  n('الحربي', 'Al-Harbi'),
  n('المطيري', 'Al-Mutairi'),
  n('الشمري', 'Al-Shammari'),
  n('العنزي', 'Al-Anazi'),
  n('السبيعي', 'Al-Subaie'),
  n('البقمي', 'Al-Buqami'),
  n('العمري', 'Al-Omari'),
  n('السهلي', 'Al-Sahli'),
  n('الرشيدي', 'Al-Rashidi'),
  n('التميمي', 'Al-Tamimi'),
  n('الأحمدي', 'Al-Ahmadi'),
  n('الجهني', 'Al-Juhani'),
  n('الفيفي', 'Al-Faifi'),
  n('العثمان', 'Al-Othman'),
  n('الخالدي', 'Al-Khalidi'),
  n('اليامي', 'Al-Yami'),
  n('المالكي', 'Al-Malki'),
  n('الحارثي', 'Al-Harthi'),
  n('باعشن', 'Baeshen'),
  n('الصاعدي', 'Al-Saedi'),
];
const GULF_FAMILIES = [
  n('المنصوري', 'Al-Mansoori'),
  n('النعيمي', 'Al-Nuaimi'),
  n('الكعبي', 'Al-Kaabi'),
  n('العجمي', 'Al-Ajmi'),
  n('المري', 'Al-Marri'),
  n('الكواري', 'Al-Kuwari'),
  n('البلوشي', 'Al-Balushi'),
  n('الهنائي', 'Al-Hinai'),
  n('الدوسري', 'Al-Dossary'),
  n('الفلاسي', 'Al-Falasi'),
];
// Residents from abroad, who mostly shop in English.
const EXPAT_GROUPS: { male: string[]; female: string[]; last: string[] }[] = [
  {
    male: ['Rahul', 'Arjun', 'Anil', 'Vikram', 'Suresh'],
    female: ['Priya', 'Anjali', 'Divya', 'Lakshmi'],
    last: ['Sharma', 'Nair', 'Menon', 'Kumar', 'Pillai', 'Reddy'],
  },
  { male: ['Ali', 'Usman', 'Bilal', 'Hamza'], female: ['Ayesha', 'Sana', 'Hina'], last: ['Khan', 'Raza', 'Sheikh', 'Qureshi', 'Malik'] },
  {
    male: ['Jose', 'Mark', 'Paolo'],
    female: ['Maria', 'Angelica', 'Joy', 'Kristine'],
    last: ['Santos', 'Reyes', 'Cruz', 'Bautista', 'Garcia'],
  },
  { male: ['Mahmoud', 'Karim', 'Tarek'], female: ['Mona', 'Yasmin', 'Nada'], last: ['Hassan', 'Mostafa', 'Abdelrahman', 'Farouk'] },
  { male: ['James', 'Daniel', 'Thomas'], female: ['Emma', 'Sophie', 'Hannah'], last: ['Wilson', 'Clarke', 'Brown', 'Martin', 'Evans'] },
];

const digits = (rng: Random, count: number) => String(Math.floor(rng() * 10 ** count)).padStart(count, '0');
const saudiMobile = (rng: Random) => `+9665${pick(rng, ['0', '3', '4', '5', '6', '8', '9'])}${digits(rng, 7)}`;

const CITIES: WeightedTable<City> = (() => {
  const sa = (city: string, region: string, postalPrefix: string, districts: Name[]): City => ({
    country: 'SA',
    city,
    region,
    districts,
    postalPrefix,
    phone: saudiMobile,
    gulf: false,
  });
  const gulf = (
    country: string,
    city: string,
    region: string,
    dial: string,
    districts: Name[],
    postalPrefix: string | null = null,
  ): City => ({
    country,
    city,
    region,
    districts,
    postalPrefix,
    phone: (rng: Random) => `${dial}${digits(rng, 7)}`,
    gulf: true,
  });
  return WeightedTable.of<City>([
    [
      sa('Riyadh', 'Riyadh Region', '1', [
        n('العليا', 'Al Olaya'),
        n('الملقا', 'Al Malqa'),
        n('الياسمين', 'Al Yasmin'),
        n('النخيل', 'Al Nakheel'),
        n('الصحافة', 'Al Sahafa'),
        n('حطين', 'Hittin'),
        n('الروضة', 'Al Rawdah'),
        n('النرجس', 'Al Narjis'),
        n('قرطبة', 'Qurtubah'),
        n('العقيق', 'Al Aqiq'),
      ]),
      0.33,
    ],
    [
      sa('Jeddah', 'Makkah Region', '2', [
        n('الروضة', 'Al Rawdah'),
        n('الشاطئ', 'Al Shati'),
        n('الحمراء', 'Al Hamra'),
        n('السلامة', 'Al Salamah'),
        n('الزهراء', 'Al Zahra'),
        n('النعيم', 'Al Naeem'),
        n('أبحر الشمالية', 'Obhur Al Shamaliyah'),
      ]),
      0.18,
    ],
    [sa('Makkah', 'Makkah Region', '24', [n('العوالي', 'Al Awali'), n('العزيزية', 'Al Aziziyah'), n('الشوقية', 'Al Shawqiyah')]), 0.05],
    [sa('Madinah', 'Madinah Region', '42', [n('قباء', 'Quba'), n('العزيزية', 'Al Aziziyah'), n('شوران', 'Shuran')]), 0.05],
    [
      sa('Dammam', 'Eastern Province', '32', [n('الفيصلية', 'Al Faisaliyah'), n('الشاطئ', 'Al Shati'), n('المزروعية', 'Al Mazruiyah')]),
      0.07,
    ],
    [
      sa('Khobar', 'Eastern Province', '34', [n('العقربية', 'Al Aqrabiyah'), n('الراكة', 'Al Rakah'), n('الخبر الشمالية', 'North Khobar')]),
      0.05,
    ],
    [sa('Al Ahsa', 'Eastern Province', '36', [n('المبرز', 'Al Mubarraz'), n('الهفوف', 'Al Hofuf')]), 0.03],
    [sa('Taif', 'Makkah Region', '26', [n('الحوية', 'Al Hawiyah'), n('شهار', 'Shehar')]), 0.025],
    [sa('Abha', 'Asir Region', '62', [n('المنسك', 'Al Mansak'), n('الخالدية', 'Al Khaldiyah')]), 0.025],
    [sa('Khamis Mushait', 'Asir Region', '61', [n('الراقي', 'Al Raqi'), n('الموسى', 'Al Mousa')]), 0.02],
    [sa('Buraidah', 'Al-Qassim Region', '52', [n('الريان', 'Al Rayyan'), n('الإسكان', 'Al Iskan')]), 0.03],
    [sa('Tabuk', 'Tabuk Region', '47', [n('المروج', 'Al Muruj'), n('الفيصلية', 'Al Faisaliyah')]), 0.02],
    [sa('Hail', 'Hail Region', '55', [n('النقرة', 'Al Naqrah'), n('المنتزه', 'Al Muntazah')]), 0.015],
    [sa('Jazan', 'Jazan Region', '45', [n('الروضة', 'Al Rawdah'), n('الشاطئ', 'Al Shati')]), 0.015],
    [sa('Najran', 'Najran Region', '66', [n('الفيصلية', 'Al Faisaliyah'), n('الأمير مشعل', 'Prince Mishal')]), 0.01],
    [gulf('AE', 'Dubai', 'Dubai', '+9715', [n('البرشاء', 'Al Barsha'), n('جميرا', 'Jumeirah'), n('ديرة', 'Deira')]), 0.02],
    [gulf('AE', 'Abu Dhabi', 'Abu Dhabi', '+9715', [n('الخالدية', 'Al Khalidiyah'), n('الريم', 'Al Reem')]), 0.01],
    [gulf('KW', 'Kuwait City', 'Al Asimah', '+9656', [n('السالمية', 'Salmiya'), n('حولي', 'Hawalli')], '2'), 0.01],
    [gulf('QA', 'Doha', 'Doha', '+9745', [n('الوكرة', 'Al Wakrah'), n('اللؤلؤة', 'The Pearl')]), 0.01],
    [gulf('BH', 'Manama', 'Capital Governorate', '+9733', [n('الجفير', 'Juffair'), n('السيف', 'Seef')]), 0.005],
    [gulf('OM', 'Muscat', 'Muscat', '+9689', [n('القرم', 'Al Qurum'), n('الخوير', 'Al Khuwair')], '1'), 0.005],
  ]);
})();

const STREETS = [
  n('طريق الملك فهد', 'King Fahd Road'),
  n('طريق الملك عبدالعزيز', 'King Abdulaziz Road'),
  n('شارع الأمير سلطان', 'Prince Sultan Street'),
  n('شارع التحلية', 'Tahlia Street'),
  n('طريق الأمير محمد بن عبدالعزيز', 'Prince Mohammed bin Abdulaziz Road'),
  n('طريق المدينة', 'Madinah Road'),
  n('شارع عمر بن الخطاب', 'Omar bin Al Khattab Street'),
  n('شارع الأمير ماجد', 'Prince Majed Street'),
  n('شارع الستين', 'Al Sitteen Street'),
  n('طريق الملك عبدالله', 'King Abdullah Road'),
  n('شارع الأمير فيصل بن فهد', 'Prince Faisal bin Fahd Street'),
  n('شارع ابن خلدون', 'Ibn Khaldun Street'),
];
const LABELS = { home: n('المنزل', 'Home'), work: n('العمل', 'Work'), family: n('بيت الأهل', 'Family home') };
const EMAIL_DOMAINS = WeightedTable.of([
  ['gmail.example', 0.45],
  ['icloud.example', 0.15],
  ['hotmail.example', 0.18],
  ['outlook.example', 0.14],
  ['yahoo.example', 0.08],
]);

/**
 * People of the demo: a shopper (or guest) number `index` is always the same person for a given seed,
 * so the generator can forget a shopper and ask again when they come back to order.
 */
export class DemoPeople {
  constructor(private readonly seed: number) {}

  person(kind: 'shopper' | 'guest', index: number): DemoPerson {
    const rng = randomStream(this.seed ^ (kind === 'shopper' ? 0x5a5a5a5a : 0x3c3c3c3c), index);
    const home = CITIES.draw(rng);
    const locale: Locale = rng() < 0.64 ? 'ar' : 'en';
    const female = rng() < 0.48;
    const expat = locale === 'en' && !home.gulf && rng() < 0.45;
    let first: Name;
    let last: Name;
    if (expat) {
      const group = pick(rng, EXPAT_GROUPS);
      const given = pick(rng, female ? group.female : group.male);
      const family = pick(rng, group.last);
      first = n(given, given);
      last = n(family, family);
    } else {
      first = pick(rng, female ? FEMALE : MALE);
      last = pick(rng, home.gulf && rng() < 0.8 ? GULF_FAMILIES : SAUDI_FAMILIES);
    }
    const script = locale === 'ar' && !expat ? 'ar' : 'en';
    const firstName = first[script];
    const lastName = last[script];
    const phone = home.phone(rng);
    const fullName = `${firstName} ${lastName}`;

    const addressCount = rng() < 0.62 ? 1 : rng() < 0.74 ? 2 : 3;
    const addresses = [this.address(rng, home, LABELS.home, fullName, phone, locale)];
    if (addressCount >= 2) addresses.push(this.address(rng, home, LABELS.work, fullName, phone, locale));
    if (addressCount >= 3) addresses.push(this.address(rng, CITIES.draw(rng), LABELS.family, fullName, phone, locale));

    return {
      firstName,
      lastName,
      emailLocal: emailLocal(rng, first.en, last.en),
      emailDomain: EMAIL_DOMAINS.draw(rng),
      locale,
      phone: rng() < 0.8 ? phone : null,
      marketingOptIn: rng() < 0.38,
      emailVerified: rng() < 0.87,
      addresses,
    };
  }

  private address(rng: Random, city: City, label: Name, fullName: string, phone: string, locale: Locale): DemoAddress {
    const script = locale;
    const street = pick(rng, STREETS);
    const district = pick(rng, city.districts);
    const building = intBetween(rng, 1000, 9999);
    const apartment = rng() < 0.45 ? intBetween(rng, 1, 40) : null;
    return {
      label: label[script],
      fullName,
      phone,
      line1: `${building} ${street[script]}`,
      line2: apartment === null ? '' : script === 'ar' ? `شقة ${apartment}` : `Apt ${apartment}`,
      district: district[script],
      city: city.city,
      region: city.region,
      postalCode: city.postalPrefix === null ? '' : `${city.postalPrefix}${digits(rng, 5 - city.postalPrefix.length)}`,
      country: city.country,
    };
  }
}

function emailLocal(rng: Random, first: string, last: string): string {
  const f = first.toLowerCase().replace(/[^a-z]/g, '');
  const l = last
    .toLowerCase()
    .replace(/^al-/, rng() < 0.5 ? 'al' : '')
    .replace(/[^a-z]/g, '');
  const year = String(intBetween(rng, 75, 106) % 100).padStart(2, '0');
  const forms = [`${f}.${l}`, `${f}${l}`, `${f}_${l}`, `${f[0]}${l}`, `${f}${year}`, `${f}.${l}${intBetween(rng, 1, 99)}`, `${l}.${f}`];
  return pick(rng, forms);
}
